// aglu_loc_lane.v - one 64-bit MINLOC/MAXLOC pair lane of the AgLU.
//
// A pair is {index, value}: value in bits [31:0] (float32 when is_float = 1,
// else signed int32), signed int32 index in bits [63:32]. The result is one
// of the two input pairs, bit for bit (no NaN canonicalisation):
//   * the smaller (is_max = 0) or larger (is_max = 1) value wins;
//   * equal values (float -0 == +0) tie;
//   * a NaN value wins over a number; two NaN values tie;
//   * a tie goes to the lower index, and to operand a on equal indices.
//
// Computed only while `en` is 1; otherwise the output is zero (operand
// isolation in synthesis, skipped work in Verilator).
`default_nettype none

module aglu_loc_lane (
    input  wire        en,
    input  wire        is_max,
    input  wire        is_float,
    input  wire [63:0] a,
    input  wire [63:0] b,
    output reg  [63:0] y
);
    // Unsigned order key of a value. Float (not NaN): x[31] ? ~x : x | msb,
    // with -0 first mapped to +0 so the two compare equal. Int32: sign bit
    // inverted.
    function [31:0] value_key;
        input        flt;
        input [31:0] v;
        reg   [31:0] m;
        begin
            if (flt) begin
                m = (v == 32'h8000_0000) ? 32'h0000_0000 : v;
                value_key = m[31] ? ~m : (m | 32'h8000_0000);
            end else begin
                value_key = {~v[31], v[30:0]};
            end
        end
    endfunction

    function [63:0] loc;
        input        want_max;
        input        flt;
        input [63:0] pa;
        input [63:0] pb;
        reg          a_nan, b_nan;
        reg [31:0]   ka, kb;
        reg          tie;
        reg          b_better;        // b's value wins outright
        reg          b_lower_index;
        begin
            a_nan = flt && (pa[30:23] == 8'hFF) && (|pa[22:0]);
            b_nan = flt && (pb[30:23] == 8'hFF) && (|pb[22:0]);
            ka    = value_key(flt, pa[31:0]);
            kb    = value_key(flt, pb[31:0]);
            b_lower_index = {~pb[63], pb[62:32]} < {~pa[63], pa[62:32]};

            if (a_nan || b_nan) begin
                tie      = a_nan && b_nan;
                b_better = b_nan && !a_nan;
            end else begin
                tie      = (ka == kb);
                b_better = want_max ? (kb > ka) : (kb < ka);
            end
            loc = (tie ? b_lower_index : b_better) ? pb : pa;
        end
    endfunction

    // Default first, then the gated call: Verilator turns a one-assignment
    // if/else into ?: and would then evaluate the function unconditionally.
    always @* begin
        y = 64'd0;
        if (en) y = loc(is_max, is_float, a, b);
    end
endmodule

`default_nettype wire
