/* Four mjData stepped on four threads against one shared mjModel (a plain MuJoCo program).
 *
 *   threads SCENE.xml [STEPS]
 *
 * Every thread starts from the same state (first keyframe, if any) and steps STEPS times; each
 * prints "thread T" and its final qpos with 17 significant digits. Run under LD_PRELOAD of
 * libspecula.so, this checks that the collision hook is safe and deterministic with threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <mujoco/mujoco.h>

#define NTHREAD 4

static const mjModel* model;
static int nstep;

static void* run(void* arg) {
  mjData* d = (mjData*)arg;
  for (int s = 0; s < nstep; s++) {
    mj_step(model, d);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCENE.xml [STEPS]\n", argv[0]);
    return 2;
  }
  nstep = argc > 2 ? atoi(argv[2]) : 1000;
  char error[1000] = "";
  mjModel* m = mj_loadXML(argv[1], NULL, error, sizeof(error));
  if (!m) {
    fprintf(stderr, "threads: cannot load %s: %s\n", argv[1], error);
    return 1;
  }
  model = m;

  mjData* data[NTHREAD];
  pthread_t thread[NTHREAD];
  for (int t = 0; t < NTHREAD; t++) {
    data[t] = mj_makeData(m);
    if (m->nkey > 0) {
      mj_resetDataKeyframe(m, data[t], 0);
    }
  }
  for (int t = 0; t < NTHREAD; t++) {
    if (pthread_create(&thread[t], NULL, run, data[t]) != 0) {
      fprintf(stderr, "threads: cannot start thread %d\n", t);
      return 1;
    }
  }
  for (int t = 0; t < NTHREAD; t++) {
    pthread_join(thread[t], NULL);
  }
  for (int t = 0; t < NTHREAD; t++) {
    printf("thread %d", t);
    for (int i = 0; i < m->nq; i++) {
      printf(" %.17g", data[t]->qpos[i]);
    }
    printf("\n");
    mj_deleteData(data[t]);
  }
  mj_deleteModel(m);
  return 0;
}
