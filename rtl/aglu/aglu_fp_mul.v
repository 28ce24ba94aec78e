// aglu_fp_mul.v - IEEE 754 binary floating-point multiplier for one AgLU lane.
//
// Parameterised by exponent width EW and fraction width MW (binary32: 8/23,
// binary64: 11/52). Round to nearest, ties to even; subnormal inputs and
// outputs (no flush to zero); overflow gives +-Inf; any NaN input or 0 * Inf
// gives the canonical quiet NaN. The sign of every other result, zeros and
// infinities included, is sign(a) XOR sign(b).
//
// Datapath: subnormal significands are first normalised (leading-zero count
// and left shift, exponent lowered to match), so the full 2*(MW+1)-bit
// product of the two significands has its leading one in one of the top two
// bits. The product is reduced to hidden bit, fraction, guard bit and one
// sticky bit for everything below. If the biased exponent is below 1, that is
// shifted right by the deficit with the lost bits folded into sticky
// (subnormal or zero result); distances beyond MW+2 leave only sticky, so the
// shift is clamped there. Rounding adds the round-up bit to the packed
// {exponent, fraction}, so a carry moves a subnormal to the minimum normal and
// the largest finite value to Inf.
//
// The function is computed only while `en` is 1 (operand isolation in
// synthesis; Verilator skips the branch); otherwise the output is zero.
`default_nettype none

module aglu_fp_mul #(
    parameter integer EW = 8,   // exponent bits
    parameter integer MW = 23   // fraction bits (hidden bit not counted)
) (
    input  wire           en,
    input  wire [EW+MW:0] a,
    input  wire [EW+MW:0] b,
    output reg  [EW+MW:0] y
);
    localparam integer W    = EW + MW + 1;       // word width
    localparam integer SIGW = MW + 1;            // significand with hidden bit
    localparam integer PW   = 2 * SIGW;          // full significand product
    localparam integer QW   = MW + 3;            // hidden, fraction, guard, sticky
    localparam integer LZW  = $clog2(SIGW);      // leading-zero count width
    localparam integer XW   = EW + 2;            // exponent arithmetic, no wrap
    localparam integer RMAX_I = MW + 2;          // right shifts at least this long give 0 + sticky

    localparam [EW-1:0] EXP_ONES = {EW{1'b1}};
    localparam [XW-1:0] EXP_ONES_X = {2'b00, EXP_ONES};
    localparam [EW-1:0] EXP_ONE  = {{(EW-1){1'b0}}, 1'b1};
    localparam [XW-1:0] BIAS     = {3'b000, {(EW-1){1'b1}}};
    localparam [XW-1:0] RMAX     = RMAX_I[XW-1:0];
    localparam [W-1:0]  QNAN     = {1'b0, EXP_ONES, 1'b1, {(MW-1){1'b0}}};

    // Leading zeros of a nonzero significand by binary search: bit k of the
    // count is set when the top 2^k bits of what is left are all zero, in
    // which case they are shifted out.
    function [LZW-1:0] lzc;
        input [SIGW-1:0] x;
        reg   [SIGW-1:0] t;
        integer          k;
        begin
            t = x;
            for (k = LZW - 1; k >= 0; k = k - 1) begin
                lzc[k] = ~|(t >> (SIGW - (1 << k)));
                if (lzc[k]) t = t << (1 << k);
            end
        end
    endfunction

    function [W-1:0] fmul;
        input [W-1:0] fa;
        input [W-1:0] fb;
        reg            sgn;
        reg            a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
        reg [SIGW-1:0] ma, mb;        // significands, normalised (leading one at the top)
        reg [LZW-1:0]  lza, lzb;      // normalising shifts (nonzero only for subnormals)
        reg [PW-1:0]   p;
        reg [QW-1:0]   q;             // {hidden, fraction, guard, sticky} of the product
        reg [XW-1:0]   e_sum;         // ea + eb (+1 when the product has its one at the top)
        reg [XW-1:0]   e_sub;         // bias + normalising shifts
        reg [XW-1:0]   e;             // biased result exponent when normal: e_sum - e_sub
        reg [XW-1:0]   rs;            // right shift towards subnormal: 1 - e
        reg            normal;
        reg            lost;          // nonzero bits shifted out to the right
        reg [EW-1:0]   e_field;
        reg            rnd;
        reg [W-2:0]    mag;
        begin
            sgn    = fa[W-1] ^ fb[W-1];
            a_nan  = (fa[W-2:MW] == EXP_ONES) && (|fa[MW-1:0]);
            b_nan  = (fb[W-2:MW] == EXP_ONES) && (|fb[MW-1:0]);
            a_inf  = (fa[W-2:MW] == EXP_ONES) && ~(|fa[MW-1:0]);
            b_inf  = (fb[W-2:MW] == EXP_ONES) && ~(|fb[MW-1:0]);
            a_zero = ~|fa[W-2:0];
            b_zero = ~|fb[W-2:0];

            if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) begin
                fmul = QNAN;
            end else if (a_inf || b_inf) begin
                fmul = {sgn, EXP_ONES, {MW{1'b0}}};
            end else if (a_zero || b_zero) begin
                fmul = {sgn, {(W-1){1'b0}}};
            end else begin
                ma  = {|fa[W-2:MW], fa[MW-1:0]};
                mb  = {|fb[W-2:MW], fb[MW-1:0]};
                lza = lzc(ma);
                lzb = lzc(mb);
                ma  = ma << lza;
                mb  = mb << lzb;
                p   = {{SIGW{1'b0}}, ma} * {{SIGW{1'b0}}, mb};

                // The product is in [2^(PW-2), 2^PW): take MW+2 bits from its
                // leading one and OR the rest into sticky.
                if (p[PW-1])
                    q = {p[PW-1:PW-MW-2], |p[PW-MW-3:0]};
                else
                    q = {p[PW-2:PW-MW-3], |p[PW-MW-4:0]};

                // Value 1.f * 2^(e - bias) with biased exponent
                // e = ea + eb - bias - lza - lzb + p[PW-1] (effective exponents).
                e_sum = {2'b00, ((|fa[W-2:MW]) ? fa[W-2:MW] : EXP_ONE)} +
                        {2'b00, ((|fb[W-2:MW]) ? fb[W-2:MW] : EXP_ONE)} +
                        {{(XW-1){1'b0}}, p[PW-1]};
                e_sub = BIAS + {{(XW-LZW){1'b0}}, lza} + {{(XW-LZW){1'b0}}, lzb};
                e     = e_sum - e_sub;
                rs    = e_sub + 1'b1 - e_sum;
                lost  = 1'b0;

                normal = (e_sum > e_sub);
                if (!normal) begin
                    if (rs > RMAX) rs = RMAX;
                    lost = |(q & ~({QW{1'b1}} << rs));
                    q    = q >> rs;
                end

                e_field = normal ? e[EW-1:0] : {EW{1'b0}};
                rnd     = q[1] & (q[2] | q[0] | lost);
                mag     = {e_field, q[QW-2:2]} + {{(W-2){1'b0}}, rnd};

                if (normal && (e >= EXP_ONES_X))
                    fmul = {sgn, EXP_ONES, {MW{1'b0}}};
                else
                    fmul = {sgn, mag};
            end
        end
    endfunction

    // Default first, then the gated call: Verilator turns a one-assignment
    // if/else into ?: and would then evaluate the function unconditionally.
    always @* begin
        y = {W{1'b0}};
        if (en) y = fmul(a, b);
    end
endmodule

`default_nettype wire
