/* Layout of the trap frame that crt0.S saves and the C handlers see (struct frame in bare.h). */
#ifndef BARE_FRAME_H
#define BARE_FRAME_H

#define FRAME_EPC (32 * 8)
#define FRAME_CAUSE (33 * 8)
#define FRAME_TVAL (34 * 8)
#define FRAME_STATUS (35 * 8)
#define FRAME_SLOT (36 * 8)
#define FRAME_SIZE (38 * 8) /* keeps sp 16-byte aligned */

/* a7 values of the ecalls the runtime itself makes from S/U code. */
#define RUN_MAGIC 0x52554e /* "RUN": run_in's function returned, a0 = its result */
#define FAIL_MAGIC 0x4641494c /* "FAIL": a check failed, a0..a2 = line, expected, got */

#define SLOT_DIRECT (-1)

#endif
