/* A plain MuJoCo program: load a scene, step it, print qpos after every step.
 *
 *   step SCENE.xml [STEPS] [NUDGE]
 *
 * It knows nothing about specula. Run it as is for MuJoCo's own collision, or with
 * LD_PRELOAD=.../libspecula.so and SPECULA_COLLISION=rust for specula's. The scene starts from
 * its first keyframe when it has one; NUDGE (default 0) is added to every qpos first, which the
 * tests use to measure how far MuJoCo drifts from itself (the noise floor).
 *
 * Built with -DSPECULA_LINKED it is linked against libspecula.so instead of preloading it, and
 * prints specula's statistics (specula.h) to stderr at the end. */
#include <stdio.h>
#include <stdlib.h>

#include <mujoco/mujoco.h>

#ifdef SPECULA_LINKED
#include "specula.h"
#endif

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCENE.xml [STEPS] [NUDGE]\n", argv[0]);
    return 2;
  }
  int steps = argc > 2 ? atoi(argv[2]) : 1000;
  double nudge = argc > 3 ? atof(argv[3]) : 0.0;

  char error[1000] = "";
  mjModel* m = mj_loadXML(argv[1], NULL, error, sizeof(error));
  if (!m) {
    fprintf(stderr, "step: cannot load %s: %s\n", argv[1], error);
    return 1;
  }
  mjData* d = mj_makeData(m);
  if (m->nkey > 0) {
    mj_resetDataKeyframe(m, d, 0);
  }
  for (int i = 0; i < m->nq; i++) {
    d->qpos[i] += nudge;
  }

  for (int s = 0; s < steps; s++) {
    mj_step(m, d);
    printf("%d", s);
    for (int i = 0; i < m->nq; i++) {
      printf(" %.17g", d->qpos[i]);
    }
    printf("\n");
  }

#ifdef SPECULA_LINKED
  specula_stats_t st;
  specula_stats(&st);
  fprintf(stderr, "specula: mode %d, %llu collision calls: %llu rust, %llu c, %llu fallbacks\n", specula_mode(),
          (unsigned long long)st.calls, (unsigned long long)st.rust_calls, (unsigned long long)st.c_calls,
          (unsigned long long)st.fallback_calls);
#endif

  mj_deleteData(d);
  mj_deleteModel(m);
  return 0;
}
