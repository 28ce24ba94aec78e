// aglu_fp_mul.v - IEEE 754 binary floating-point multiplier for one AgLU lane.
//
// Parameterised by exponent width EW and fraction width MW (binary32: 8/23,
// binary64: 11/52). Round to nearest, ties to even; subnormal inputs and
// outputs (no flush to zero); overflow gives +-Inf; any NaN input or 0 * Inf
// gives the canonical quiet NaN. The sign of every other result, zeros and
// infinities included, is sign(a) XOR sign(b).
//
// Datapath: the full 2*(MW+1)-bit product of the two significands (a
// subnormal contributes its fraction without hidden bit and exponent 1) is
// normalised by one shift whose direction and distance come from the leading
// zero count and the exponent sum:
//   * enough exponent range   -> left shift by the leading-zero count (normal);
//   * a little too little     -> left shift only down to exponent 1 (subnormal);
//   * exponent sum below bias -> right shift with sticky (subnormal or zero);
//     distances beyond MW+2 leave nothing but sticky, so the shift is clamped.
// Rounding adds the round-up bit to the packed {exponent, fraction}, so a carry
// moves a subnormal to the minimum normal and the largest finite value to Inf.
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
    localparam integer W   = EW + MW + 1;       // word width
    localparam integer PW  = 2 * (MW + 1);      // full significand product
    localparam integer LZW = $clog2(PW);        // leading-zero count width
    localparam integer XW  = EW + 2;            // exponent arithmetic, no wrap
    localparam integer RMAX_I = MW + 2;         // right shifts at least this long give 0 + sticky

    localparam [EW-1:0] EXP_ONES = {EW{1'b1}};
    localparam [EW-1:0] EXP_ONE  = {{(EW-1){1'b0}}, 1'b1};
    localparam [XW-1:0] BIAS     = {3'b000, {(EW-1){1'b1}}};
    localparam [XW-1:0] RMAX     = RMAX_I[XW-1:0];
    localparam [W-1:0]  QNAN     = {1'b0, EXP_ONES, 1'b1, {(MW-1){1'b0}}};

    // Leading zeros of a nonzero PW-bit value by binary search (see aglu_fp_add).
    function [LZW-1:0] lzc;
        input [PW-1:0] x;
        reg   [PW-1:0] t;
        integer        k;
        begin
            t = x;
            for (k = LZW - 1; k >= 0; k = k - 1) begin
                lzc[k] = ~|(t >> (PW - (1 << k)));
                if (lzc[k]) t = t << (1 << k);
            end
        end
    endfunction

    function [W-1:0] fmul;
        input [W-1:0] fa;
        input [W-1:0] fb;
        reg           sgn;
        reg           a_nan, b_nan, a_inf, b_inf, a_zero, b_zero;
        reg [MW:0]    ma, mb;
        reg [XW-1:0]  se;             // ea + eb (effective exponents), bias BIAS*2
        reg [PW-1:0]  p;
        reg [LZW-1:0] lz;
        reg [XW-1:0]  lzx;
        reg [XW-1:0]  rs;             // right-shift distance before clamping
        reg [PW-1:0]  sv;             // shifted product: hidden bit at PW-1 when normal
        reg           lost;           // nonzero bits shifted out to the right
        reg           normal;
        reg [XW-1:0]  e;              // biased result exponent when normal
        reg [EW-1:0]  e_field;
        reg           rnd;
        reg [W-2:0]   mag;
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
                se  = {2'b00, ((|fa[W-2:MW]) ? fa[W-2:MW] : EXP_ONE)} +
                      {2'b00, ((|fb[W-2:MW]) ? fb[W-2:MW] : EXP_ONE)};
                p   = {{(MW+1){1'b0}}, ma} * {{(MW+1){1'b0}}, mb};
                lz  = lzc(p);
                lzx = {{(XW-LZW){1'b0}}, lz};
                rs  = BIAS - se;
                e   = se - BIAS + 1'b1 - lzx;
                lost = 1'b0;

                // With hidden bit at PW-1 the value is 1.f * 2^(se - 2*bias + 1 - lz),
                // i.e. biased exponent se - bias + 1 - lz.
                if (se >= BIAS + lzx) begin
                    normal = 1'b1;
                    sv     = p << lz;
                end else if (se >= BIAS) begin
                    // Stop at biased exponent 1: subnormal, shifted left by se - bias < lz.
                    normal = 1'b0;
                    sv     = p << (se - BIAS);
                end else begin
                    normal = 1'b0;
                    if (rs > RMAX) rs = RMAX;
                    sv     = p >> rs;
                    lost   = |(p & ~({PW{1'b1}} << rs));
                end

                e_field = normal ? e[EW-1:0] : {EW{1'b0}};
                rnd     = sv[MW] & (sv[MW+1] | lost | (|sv[MW-1:0]));
                mag     = {e_field, sv[PW-2:MW+1]} + {{(W-2){1'b0}}, rnd};

                if (normal && (e >= {2'b00, EXP_ONES}))
                    fmul = {sgn, EXP_ONES, {MW{1'b0}}};
                else
                    fmul = {sgn, mag};
            end
        end
    endfunction

    always @* begin
        if (en)
            y = fmul(a, b);
        else
            y = {W{1'b0}};
    end
endmodule

`default_nettype wire
