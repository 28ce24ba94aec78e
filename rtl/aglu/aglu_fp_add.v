// aglu_fp_add.v - IEEE 754 binary floating-point adder for one AgLU lane.
//
// Parameterised by exponent width EW and fraction width MW (binary32: 8/23,
// binary64: 11/52). Round to nearest, ties to even; subnormal inputs and
// outputs (no flush to zero); overflow gives +-Inf; any NaN input or Inf-Inf
// gives the canonical quiet NaN (sign 0, fraction MSB only). An exact zero sum
// is -0 only when both addends are -0 (x + (-x) = +0 in this rounding mode).
//
// Datapath: order the operands by magnitude, align the smaller significand
// with guard, round and sticky bits, add or subtract, normalise (one right
// shift on carry-out, or a leading-zero left shift that stops at the minimum
// exponent so tiny results come out subnormal), then round by adding the
// round-up bit to the packed {exponent, fraction}: a carry out of the
// fraction moves the exponent on, which takes a subnormal to the minimum
// normal and the largest finite value to Inf without extra logic.
//
// The whole function is computed only while `en` is 1; otherwise the output is
// held at zero. Synthesis turns this into operand isolation, and Verilator
// skips the branch, so lanes of an unused datatype or operation cost nothing.
`default_nettype none

module aglu_fp_add #(
    parameter integer EW = 8,   // exponent bits
    parameter integer MW = 23   // fraction bits (hidden bit not counted)
) (
    input  wire           en,
    input  wire [EW+MW:0] a,
    input  wire [EW+MW:0] b,
    output reg  [EW+MW:0] y
);
    localparam integer W   = EW + MW + 1;      // word width
    localparam integer SW  = MW + 4;           // hidden + fraction + guard, round, sticky
    localparam integer LZW = $clog2(SW);       // leading-zero count width (EW > LZW)
    localparam integer AW  = $clog2(SW + 1);   // width of the clamped alignment shift

    localparam [EW-1:0] EXP_ONES = {EW{1'b1}};
    localparam [EW-1:0] EXP_ONE  = {{(EW-1){1'b0}}, 1'b1};
    localparam [EW-1:0] SW_E     = SW[EW-1:0];  // alignment shifts beyond SW lose everything
    localparam [W-1:0]  QNAN     = {1'b0, EXP_ONES, 1'b1, {(MW-1){1'b0}}};

    // Leading zeros of a nonzero SW-bit value by binary search: bit k of the
    // count is set when the top 2^k bits of what is left are all zero, in
    // which case they are shifted out.
    function [LZW-1:0] lzc;
        input [SW-1:0] x;
        reg   [SW-1:0] t;
        integer        k;
        begin
            t = x;
            for (k = LZW - 1; k >= 0; k = k - 1) begin
                lzc[k] = ~|(t >> (SW - (1 << k)));
                if (lzc[k]) t = t << (1 << k);
            end
        end
    endfunction

    function [W-1:0] fadd;
        input [W-1:0] fa;
        input [W-1:0] fb;
        reg           a_nan, b_nan, a_inf, b_inf;
        reg [W-1:0]   x, z;           // x: operand of larger magnitude, z: the other
        reg [EW-1:0]  ex, ez;         // effective exponents (a subnormal counts as 1)
        reg [EW-1:0]  d;              // alignment distance ex - ez
        reg [AW-1:0]  dc;             // ... clamped to SW
        reg [SW-1:0]  xs, zs_full, zs;
        reg           lost;           // nonzero bits shifted out during alignment
        reg [SW:0]    sum;            // with carry-out
        reg [LZW-1:0] lz;
        reg [EW-1:0]  lsh;            // normalising left shift, limited to ex - 1
        reg [SW-1:0]  s;              // normalised significand, G/R/S in s[2:0]
        reg [EW:0]    e;              // result exponent, one extra bit for overflow
        reg [EW-1:0]  e_field;
        reg           rnd;
        reg [W-2:0]   mag;
        begin
            a_nan = (fa[W-2:MW] == EXP_ONES) && (|fa[MW-1:0]);
            b_nan = (fb[W-2:MW] == EXP_ONES) && (|fb[MW-1:0]);
            a_inf = (fa[W-2:MW] == EXP_ONES) && ~(|fa[MW-1:0]);
            b_inf = (fb[W-2:MW] == EXP_ONES) && ~(|fb[MW-1:0]);

            if (a_nan || b_nan || (a_inf && b_inf && (fa[W-1] != fb[W-1]))) begin
                fadd = QNAN;
            end else if (a_inf) begin
                fadd = fa;
            end else if (b_inf) begin
                fadd = fb;
            end else begin
                // Magnitude order: {exponent, fraction} compares as an unsigned integer.
                if (fb[W-2:0] > fa[W-2:0]) begin
                    x = fb;
                    z = fa;
                end else begin
                    x = fa;
                    z = fb;
                end
                ex = (|x[W-2:MW]) ? x[W-2:MW] : EXP_ONE;
                ez = (|z[W-2:MW]) ? z[W-2:MW] : EXP_ONE;
                d  = ex - ez;
                dc = (d > SW_E) ? SW_E[AW-1:0] : d[AW-1:0];

                xs      = {|x[W-2:MW], x[MW-1:0], 3'b000};
                zs_full = {|z[W-2:MW], z[MW-1:0], 3'b000};
                zs      = zs_full >> dc;
                lost    = |(zs_full & ~({SW{1'b1}} << dc));
                zs[0]   = zs[0] | lost;

                // |x| >= |z|, so the difference is never negative.
                if (x[W-1] != z[W-1])
                    sum = {1'b0, xs} - {1'b0, zs};
                else
                    sum = {1'b0, xs} + {1'b0, zs};

                if (~|sum) begin
                    // Exact zero: -0 only for (-0) + (-0).
                    fadd = {fa[W-1] & fb[W-1], {(W-1){1'b0}}};
                end else begin
                    if (sum[SW]) begin
                        // Carry-out: shift right once, folding the lost bit into sticky.
                        s = {sum[SW:2], sum[1] | sum[0]};
                        e = {1'b0, ex} + 1'b1;
                    end else begin
                        // Cancellation: a left shift of more than one bit only happens
                        // when the alignment distance was <= 1, so no sticky bits were
                        // lost and the shift is exact. It stops at exponent 1, where the
                        // result is subnormal.
                        lz  = lzc(sum[SW-1:0]);
                        lsh = ({{(EW-LZW){1'b0}}, lz} < (ex - EXP_ONE)) ?
                              {{(EW-LZW){1'b0}}, lz} : (ex - EXP_ONE);
                        s   = sum[SW-1:0] << lsh;
                        e   = {1'b0, ex} - {1'b0, lsh};
                    end

                    // Hidden bit clear means subnormal (then e is 1, encoded as 0).
                    e_field = s[SW-1] ? e[EW-1:0] : {EW{1'b0}};
                    rnd     = s[2] & (s[3] | s[1] | s[0]);
                    mag     = {e_field, s[SW-2:3]} + {{(W-2){1'b0}}, rnd};

                    if (e >= {1'b0, EXP_ONES})
                        fadd = {x[W-1], EXP_ONES, {MW{1'b0}}};
                    else
                        fadd = {x[W-1], mag};
                end
            end
        end
    endfunction

    // Default first, then the gated call: Verilator turns a one-assignment
    // if/else into ?: and would then evaluate the function unconditionally.
    always @* begin
        y = {W{1'b0}};
        if (en) y = fadd(a, b);
    end
endmodule

`default_nettype wire
