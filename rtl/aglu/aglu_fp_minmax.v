// aglu_fp_minmax.v - IEEE 754-2019 minimum / maximum for one AgLU float lane.
//
// Parameterised by exponent width EW and fraction width MW. A NaN in either
// operand gives the canonical quiet NaN; otherwise the smaller (is_max = 0)
// or larger (is_max = 1) operand is returned bit for bit, with -0 < +0.
//
// Comparison: for a non-NaN word x, key = x[msb] ? ~x : x | msb maps the
// floats, -0 before +0, onto an unsigned total order, so one integer
// comparator orders them. Equal keys mean identical words, so the choice
// between them does not matter.
//
// Computed only while `en` is 1; otherwise the output is zero (operand
// isolation in synthesis, skipped work in Verilator).
`default_nettype none

module aglu_fp_minmax #(
    parameter integer EW = 8,   // exponent bits
    parameter integer MW = 23   // fraction bits
) (
    input  wire           en,
    input  wire           is_max,
    input  wire [EW+MW:0] a,
    input  wire [EW+MW:0] b,
    output reg  [EW+MW:0] y
);
    localparam integer W = EW + MW + 1;

    localparam [EW-1:0] EXP_ONES = {EW{1'b1}};
    localparam [W-1:0]  QNAN     = {1'b0, EXP_ONES, 1'b1, {(MW-1){1'b0}}};
    localparam [W-1:0]  SIGN_BIT = {1'b1, {(W-1){1'b0}}};

    function [W-1:0] order_key;
        input [W-1:0] x;
        begin
            order_key = x[W-1] ? ~x : (x | SIGN_BIT);
        end
    endfunction

    function [W-1:0] fminmax;
        input         want_max;
        input [W-1:0] fa;
        input [W-1:0] fb;
        reg           a_nan, b_nan;
        reg           b_less;
        begin
            a_nan  = (fa[W-2:MW] == EXP_ONES) && (|fa[MW-1:0]);
            b_nan  = (fb[W-2:MW] == EXP_ONES) && (|fb[MW-1:0]);
            b_less = order_key(fb) < order_key(fa);
            if (a_nan || b_nan)
                fminmax = QNAN;
            else if (want_max)
                fminmax = b_less ? fa : fb;
            else
                fminmax = b_less ? fb : fa;
        end
    endfunction

    // Default first, then the gated call: Verilator turns a one-assignment
    // if/else into ?: and would then evaluate the function unconditionally.
    always @* begin
        y = {W{1'b0}};
        if (en) y = fminmax(is_max, a, b);
    end
endmodule

`default_nettype wire
