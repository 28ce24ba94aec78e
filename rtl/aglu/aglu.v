// aglu.v - AgLU (aggregation logic unit): one vectorised 256-bit reduction
// unit, top level. Specification: models/aglu/README.md.
//
// Combines two 256-bit operand vectors lane by lane with one MPI reduction
// operation: 32 x 8-bit, 16 x 16-bit, 8 x 32-bit or 4 x 64-bit integer lanes,
// 8 x float32 or 4 x float64 lanes, or 4 x 64-bit (value, index) pair lanes
// for MINLOC/MAXLOC. Unsupported (operation, datatype) pairs give a zero
// result with out_unsupported = 1.
//
// Timing: an input register stage (valid, op, datatype, operands), the whole
// function as combinational logic, then a (PIPE_STAGES - 1)-deep register
// chain (valid, result, unsupported); with PIPE_STAGES = 1 the outputs come
// straight from the function of the input registers. An input sampled with
// in_valid = 1 at rising edge k appears on the outputs after edge
// k + PIPE_STAGES - 1, and one vector is accepted every cycle. The stages are
// written at the ends only; synthesis register retiming distributes them into
// the datapath (the float adders and multipliers) to meet the clock. Having
// the input registered also means the Verilated model evaluates the function
// once per clock edge, not on every input change.
//
// Every lane unit has an enable from the decoded (valid, op, datatype): only
// the units the current vector needs compute, all others output zero. That is
// operand isolation in hardware and skipped work in the Verilated model, and
// it lets the result be the OR of all unit outputs. For a bubble (valid = 0)
// the result and unsupported flag entering the output chain are 0.
//
// Hierarchy:
//   aglu
//     aglu_int_lane  #(8/16/32/64)  32 + 16 + 8 + 4 integer lanes
//     aglu_fp_add    #(8,23)/(11,52) 8 float32 + 4 float64 adders (SUM)
//     aglu_fp_mul    #(8,23)/(11,52) 8 float32 + 4 float64 multipliers (PROD)
//     aglu_fp_minmax #(8,23)/(11,52) 8 float32 + 4 float64 MIN/MAX
//     aglu_loc_lane                  4 MINLOC/MAXLOC pair lanes
`default_nettype none

module aglu #(
    parameter integer PIPE_STAGES = 4   // latency in cycles, >= 1 (up to 32)
) (
    input  wire         clk,
    input  wire         rst_n,          // synchronous active-low reset: clears valid bits
    input  wire         in_valid,
    input  wire [3:0]   in_op,          // operation encoding from README
    input  wire [3:0]   in_dtype,       // datatype encoding from README
    input  wire [255:0] in_a,
    input  wire [255:0] in_b,
    output wire         out_valid,
    output wire [255:0] out_result,
    output wire         out_unsupported // 1 when (op,dtype) is not a supported pair; then out_result = 0
);
    // Operation encoding (models/common/isvp/reduction_types.h).
    localparam [3:0] OP_SUM    = 4'd0;
    localparam [3:0] OP_PROD   = 4'd1;
    localparam [3:0] OP_MIN    = 4'd2;
    localparam [3:0] OP_MAX    = 4'd3;
    localparam [3:0] OP_BXOR   = 4'd9;
    localparam [3:0] OP_MINLOC = 4'd10;
    localparam [3:0] OP_MAXLOC = 4'd11;

    // Datatype encoding: 0-3 INT8..INT64, 4-7 UINT8..UINT64 (bits [1:0] give
    // the width, bit 2 unsigned), 8 FLOAT32, 9 FLOAT64, 10 FLOAT32_INT32,
    // 11 INT32_INT32.
    localparam [3:0] DT_FLOAT32       = 4'd8;
    localparam [3:0] DT_FLOAT64       = 4'd9;
    localparam [3:0] DT_FLOAT32_INT32 = 4'd10;
    localparam [3:0] DT_INT32_INT32   = 4'd11;

    // --------------------------------------------------------- input stage
    // Operands load only with a valid vector (no toggling while idle).
    reg         s0_valid;
    reg [3:0]   s0_op;
    reg [3:0]   s0_dtype;
    reg [255:0] s0_a;
    reg [255:0] s0_b;

    always @(posedge clk) begin
        if (!rst_n)
            s0_valid <= 1'b0;
        else
            s0_valid <= in_valid;
        if (in_valid) begin
            s0_op    <= in_op;
            s0_dtype <= in_dtype;
            s0_a     <= in_a;
            s0_b     <= in_b;
        end
    end

    // ---------------------------------------------------------------- decode
    wire dt_int  = ~s0_dtype[3];
    wire dt_f32  = (s0_dtype == DT_FLOAT32);
    wire dt_f64  = (s0_dtype == DT_FLOAT64);
    wire dt_pair = (s0_dtype == DT_FLOAT32_INT32) || (s0_dtype == DT_INT32_INT32);

    wire op_int  = (s0_op <= OP_BXOR);
    wire op_fp   = (s0_op <= OP_MAX);
    wire op_loc  = (s0_op == OP_MINLOC) || (s0_op == OP_MAXLOC);

    wire supported = (dt_int && op_int) || ((dt_f32 || dt_f64) && op_fp) || (dt_pair && op_loc);

    wire int_go = s0_valid && dt_int && op_int;
    wire en_i8  = int_go && (s0_dtype[1:0] == 2'd0);
    wire en_i16 = int_go && (s0_dtype[1:0] == 2'd1);
    wire en_i32 = int_go && (s0_dtype[1:0] == 2'd2);
    wire en_i64 = int_go && (s0_dtype[1:0] == 2'd3);
    wire int_signed = ~s0_dtype[2];

    wire en_f32_add = s0_valid && dt_f32 && (s0_op == OP_SUM);
    wire en_f32_mul = s0_valid && dt_f32 && (s0_op == OP_PROD);
    wire en_f32_mm  = s0_valid && dt_f32 && ((s0_op == OP_MIN) || (s0_op == OP_MAX));
    wire en_f64_add = s0_valid && dt_f64 && (s0_op == OP_SUM);
    wire en_f64_mul = s0_valid && dt_f64 && (s0_op == OP_PROD);
    wire en_f64_mm  = s0_valid && dt_f64 && ((s0_op == OP_MIN) || (s0_op == OP_MAX));
    wire en_loc     = s0_valid && dt_pair && op_loc;

    wire fp_is_max  = (s0_op == OP_MAX);
    wire loc_is_max = (s0_op == OP_MAXLOC);
    wire loc_float  = (s0_dtype == DT_FLOAT32_INT32);

    // ------------------------------------------------------------- lane units
    // Each unit's output is zero unless enabled, so the lane results combine by OR.
    wire [255:0] r_i8, r_i16, r_i32, r_i64;
    wire [255:0] r_f32_add, r_f32_mul, r_f32_mm;
    wire [255:0] r_f64_add, r_f64_mul, r_f64_mm;
    wire [255:0] r_loc;

    genvar i;
    generate
        for (i = 0; i < 32; i = i + 1) begin : g_i8
            aglu_int_lane #(.W(8)) u_lane (
                .en(en_i8), .op(s0_op), .sgn(int_signed),
                .a(s0_a[8*i +: 8]), .b(s0_b[8*i +: 8]), .y(r_i8[8*i +: 8])
            );
        end
        for (i = 0; i < 16; i = i + 1) begin : g_i16
            aglu_int_lane #(.W(16)) u_lane (
                .en(en_i16), .op(s0_op), .sgn(int_signed),
                .a(s0_a[16*i +: 16]), .b(s0_b[16*i +: 16]), .y(r_i16[16*i +: 16])
            );
        end
        for (i = 0; i < 8; i = i + 1) begin : g_32
            aglu_int_lane #(.W(32)) u_int (
                .en(en_i32), .op(s0_op), .sgn(int_signed),
                .a(s0_a[32*i +: 32]), .b(s0_b[32*i +: 32]), .y(r_i32[32*i +: 32])
            );
            aglu_fp_add #(.EW(8), .MW(23)) u_add (
                .en(en_f32_add), .a(s0_a[32*i +: 32]), .b(s0_b[32*i +: 32]), .y(r_f32_add[32*i +: 32])
            );
            aglu_fp_mul #(.EW(8), .MW(23)) u_mul (
                .en(en_f32_mul), .a(s0_a[32*i +: 32]), .b(s0_b[32*i +: 32]), .y(r_f32_mul[32*i +: 32])
            );
            aglu_fp_minmax #(.EW(8), .MW(23)) u_minmax (
                .en(en_f32_mm), .is_max(fp_is_max),
                .a(s0_a[32*i +: 32]), .b(s0_b[32*i +: 32]), .y(r_f32_mm[32*i +: 32])
            );
        end
        for (i = 0; i < 4; i = i + 1) begin : g_64
            aglu_int_lane #(.W(64)) u_int (
                .en(en_i64), .op(s0_op), .sgn(int_signed),
                .a(s0_a[64*i +: 64]), .b(s0_b[64*i +: 64]), .y(r_i64[64*i +: 64])
            );
            aglu_fp_add #(.EW(11), .MW(52)) u_add (
                .en(en_f64_add), .a(s0_a[64*i +: 64]), .b(s0_b[64*i +: 64]), .y(r_f64_add[64*i +: 64])
            );
            aglu_fp_mul #(.EW(11), .MW(52)) u_mul (
                .en(en_f64_mul), .a(s0_a[64*i +: 64]), .b(s0_b[64*i +: 64]), .y(r_f64_mul[64*i +: 64])
            );
            aglu_fp_minmax #(.EW(11), .MW(52)) u_minmax (
                .en(en_f64_mm), .is_max(fp_is_max),
                .a(s0_a[64*i +: 64]), .b(s0_b[64*i +: 64]), .y(r_f64_mm[64*i +: 64])
            );
            aglu_loc_lane u_loc (
                .en(en_loc), .is_max(loc_is_max), .is_float(loc_float),
                .a(s0_a[64*i +: 64]), .b(s0_b[64*i +: 64]), .y(r_loc[64*i +: 64])
            );
        end
    endgenerate

    wire [255:0] result = r_i8 | r_i16 | r_i32 | r_i64 |
                          r_f32_add | r_f32_mul | r_f32_mm |
                          r_f64_add | r_f64_mul | r_f64_mm |
                          r_loc;

    // ---------------------------------------------------------- output chain
    // Element 0 is the function of the input stage; stage s registers element
    // s - 1. The outputs are the last element. Only the valid bits are reset.
    wire         valid_d [0:PIPE_STAGES-1];
    wire [255:0] result_d[0:PIPE_STAGES-1];
    wire         unsup_d [0:PIPE_STAGES-1];

    assign valid_d[0]  = s0_valid;
    assign result_d[0] = result;
    assign unsup_d[0]  = s0_valid && !supported;

    genvar s;
    generate
        for (s = 1; s < PIPE_STAGES; s = s + 1) begin : g_pipe
            reg         valid_q;
            reg [255:0] result_q;
            reg         unsup_q;

            always @(posedge clk) begin
                if (!rst_n)
                    valid_q <= 1'b0;
                else
                    valid_q <= valid_d[s-1];
                result_q <= result_d[s-1];
                unsup_q  <= unsup_d[s-1];
            end

            assign valid_d[s]  = valid_q;
            assign result_d[s] = result_q;
            assign unsup_d[s]  = unsup_q;
        end
    endgenerate

    assign out_valid       = valid_d[PIPE_STAGES-1];
    assign out_result      = result_d[PIPE_STAGES-1];
    assign out_unsupported = unsup_d[PIPE_STAGES-1];
endmodule

`default_nettype wire
