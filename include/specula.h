/* specula.h: specula's collision stage for MuJoCo 4.0.0 C programs (libspecula.so).
 *
 * libspecula.so defines `mj_collision`. Loaded before libmujoco (LD_PRELOAD, or linked ahead of
 * it with -lspecula), it receives every collision call MuJoCo makes, including the three inner
 * ones of RK4, and runs what the mode says:
 *
 *   SPECULA_MODE_C     MuJoCo's own collision (pass-through; the default)
 *   SPECULA_MODE_RUST  specula's Rust collision stage; models or pairs it cannot handle (flexes,
 *                      speculative contacts, sleep, a contact-filter callback, height fields and
 *                      SDFs per pair) go to MuJoCo's own and are counted as fallbacks
 *   SPECULA_MODE_DIFF  both: MuJoCo's contacts are kept, specula's are compared with them and
 *                      every mismatch is counted (and listed in the report)
 *
 * The environment sets the mode once, at the first collision call or the first call into this
 * API: SPECULA_COLLISION=rust|c|diff, SPECULA_SPECULATIVE=compat|robust (robust: specula's
 * tunnel-proof contacts, in rust mode), SPECULA_REPORT=path (JSON summary written at exit).
 * Invalid values print one message on stderr and select MuJoCo's own collision.
 *
 * No function here lets a Rust panic reach C: errors fall back to MuJoCo's collision, counted. */
#ifndef SPECULA_H_
#define SPECULA_H_

#include <stdint.h>

#include <mujoco/mujoco.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Collision modes. */
#define SPECULA_MODE_C 0
#define SPECULA_MODE_RUST 1
#define SPECULA_MODE_DIFF 2

/* Speculative-contact modes. */
#define SPECULA_SPECULATIVE_COMPAT 0
#define SPECULA_SPECULATIVE_ROBUST 1

/* Counters since the library was loaded (all threads). */
typedef struct specula_stats_t {
  uint64_t calls;           /* collision calls that reached specula (any mode) */
  uint64_t rust_calls;      /* calls whose contacts came from the Rust stage */
  uint64_t c_calls;         /* calls served by MuJoCo's collision (mode c, or a fallback) */
  uint64_t fallback_calls;  /* calls the Rust stage could not serve (sum of the four below) */
  uint64_t fallback_speculative;
  uint64_t fallback_sleep;
  uint64_t fallback_unsupported;  /* flexes, a contact-filter callback */
  uint64_t fallback_error;        /* malformed model or state, or an internal error */
  uint64_t fallback_pairs;        /* geom pairs computed by MuJoCo's pair function (hfield, sdf) */
  uint64_t contacts;              /* contacts handed to MuJoCo by the Rust stage */
  uint64_t diff_calls;            /* calls compared in diff mode */
  uint64_t mismatches;            /* diff calls whose contact lists disagreed */
  uint64_t nanos;                 /* wall time of the calls in modes rust and diff, nanoseconds */
} specula_stats_t;

/* specula's Rust collision stage for one call, whatever the mode: reset, collide, add contacts.
   Falls back to MuJoCo's mj_collision (counted) when the model or a pair is not supported. */
void specula_collision(const mjModel* m, mjData* d);

/* Set the mode (SPECULA_MODE_*) for all threads; returns 0, or -1 for an unknown mode. */
int specula_set_mode(int mode);

/* The current mode (SPECULA_MODE_*). */
int specula_mode(void);

/* Set the speculative-contact mode (SPECULA_SPECULATIVE_*); returns 0, or -1 if unknown. */
int specula_set_speculative(int mode);

/* Copy the counters into *out (ignored when NULL). */
void specula_stats(specula_stats_t* out);

/* Write the JSON report to `path` now; returns 0, or -1 if it could not be written. */
int specula_write_report(const char* path);

#ifdef __cplusplus
}
#endif

#endif /* SPECULA_H_ */
