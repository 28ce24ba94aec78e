// aglu_int_lane.v - one W-bit integer lane of the AgLU.
//
// Implements the integer MPI reductions on two's-complement lanes:
// SUM and PROD wrap (low W bits), MIN/MAX compare signed (sgn = 1) or
// unsigned, LAND/LOR/LXOR give 1 or 0, BAND/BOR/BXOR are bitwise.
// Operation codes are those of models/aglu/README.md.
//
// Computed only while `en` is 1; otherwise the output is zero (operand
// isolation in synthesis, skipped work in Verilator).
`default_nettype none

module aglu_int_lane #(
    parameter integer W = 8     // lane width: 8, 16, 32 or 64
) (
    input  wire         en,
    input  wire [3:0]   op,
    input  wire         sgn,    // 1: signed compare for MIN/MAX
    input  wire [W-1:0] a,
    input  wire [W-1:0] b,
    output reg  [W-1:0] y
);
    localparam [3:0] OP_SUM  = 4'd0;
    localparam [3:0] OP_PROD = 4'd1;
    localparam [3:0] OP_MIN  = 4'd2;
    localparam [3:0] OP_MAX  = 4'd3;
    localparam [3:0] OP_LAND = 4'd4;
    localparam [3:0] OP_LOR  = 4'd5;
    localparam [3:0] OP_LXOR = 4'd6;
    localparam [3:0] OP_BAND = 4'd7;
    localparam [3:0] OP_BOR  = 4'd8;
    localparam [3:0] OP_BXOR = 4'd9;

    localparam [W-1:0] ZERO = {W{1'b0}};
    localparam [W-1:0] ONE  = {{(W-1){1'b0}}, 1'b1};

    // Signed order = unsigned order with the sign bit inverted.
    wire b_less = {b[W-1] ^ sgn, b[W-2:0]} < {a[W-1] ^ sgn, a[W-2:0]};

    always @* begin
        if (en) begin
            case (op)
                OP_SUM:  y = a + b;
                OP_PROD: y = a * b;
                OP_MIN:  y = b_less ? b : a;
                OP_MAX:  y = b_less ? a : b;
                OP_LAND: y = ((|a) & (|b)) ? ONE : ZERO;
                OP_LOR:  y = ((|a) | (|b)) ? ONE : ZERO;
                OP_LXOR: y = ((|a) ^ (|b)) ? ONE : ZERO;
                OP_BAND: y = a & b;
                OP_BOR:  y = a | b;
                OP_BXOR: y = a ^ b;
                default: y = ZERO;
            endcase
        end else begin
            y = ZERO;
        end
    end
endmodule

`default_nettype wire
