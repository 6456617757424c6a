/**
 * The C half of run-ns.ts, compiled by Bun's TinyCC when the helper starts. No #include: the
 * host may have no C headers, so the few libc functions and Linux constants are declared here
 * (the same numbers on x86_64 and arm64). Children made with CLONE_VM|CLONE_VFORK share the
 * helper's memory while the helper's thread waits, so they run nothing of the helper's: no
 * signal handler (all blocked, then reset), no allocation.
 */
export const RUN_NS_C = `
#define NULL ((void *)0)
extern int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);
extern int mount(const char *src, const char *target, const char *type, unsigned long flags, const void *data);
extern int open(const char *path, int flags, ...);
extern int close(int fd);
extern int dup2(int from, int to);
extern int dup(int fd);
extern int unshare(int flags);
extern int setns(int fd, int type);
extern int setsid(void);
extern int chdir(const char *path);
extern int execve(const char *path, char *const argv[], char *const envp[]);
extern void _exit(int code);
extern int prctl(int option, unsigned long a, unsigned long b, unsigned long c, unsigned long d);
extern int mkdir(const char *path, unsigned int mode);
extern int pipe2(int *fds, int flags);
extern long syscall(long n, ...);
extern int waitpid(int pid, int *status, int options);
extern int capget(void *header, void *data);
extern int capset(void *header, void *data);
extern int sigprocmask(int how, const void *set, void *old);
extern void *signal(int sig, void *handler);
extern int *__errno_location(void);

#define O_RDONLY 0
#define O_RDWR 2
#define O_DIRECTORY 0200000
#define O_CLOEXEC 02000000
#define O_PATH 010000000
#define CLONE_VM 0x100
#define CLONE_FILES 0x400
#define CLONE_VFORK 0x4000
#define CLONE_PARENT 0x8000
#define CLONE_NEWNS 0x20000
#define CLONE_NEWPID 0x20000000
#define SIGCHLD 17
#define MS_RDONLY 1
#define MS_NOSUID 2
#define MS_NODEV 4
#define MS_NOEXEC 8
#define MS_REMOUNT 32
#define MS_BIND 4096
#define MS_REC 16384
#define MS_PRIVATE 262144
#define PR_SET_PDEATHSIG 1
#define PR_CAPBSET_DROP 24
#define PR_SET_NO_NEW_PRIVS 38
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#define SYS_close_range 436
#define WNOHANG 1
#define SIG_BLOCK 0
#define SIG_SETMASK 2

struct cap_header { unsigned int version; int pid; };
struct cap_data { unsigned int effective; unsigned int permitted; unsigned int inheritable; };

static long stack1[16384];
static long stack2[16384];
static unsigned char all_signals[128];
static unsigned char no_signals[128];

/* A vfork child shares the helper's memory: it runs no handler of the helper's and starts clean. */
static void clean_signals(int unblock) {
  for (int sig = 1; sig < 65; sig++) if (sig != 9 && sig != 19) signal(sig, (void *)0);
  if (unblock) sigprocmask(SIG_SETMASK, no_signals, NULL);
}

static void close_from(int first) {
  if (syscall(SYS_close_range, first, ~0U, 0) != 0) for (int fd = first; fd < 4096; fd++) close(fd);
}

static void fd_path(char *buf, int fd) {
  const char *prefix = "/proc/self/fd/";
  int i = 0;
  while (prefix[i]) { buf[i] = prefix[i]; i++; }
  char digits[12];
  int n = 0;
  do { digits[n++] = '0' + fd % 10; fd /= 10; } while (fd > 0);
  while (n > 0) buf[i++] = digits[--n];
  buf[i] = 0;
}

struct spare {
  const char *area;
  const char *dir;
  const char *init;
  int private_proc;
  int *out;
  int step;
  int err;
};

static int spare_fail(struct spare *s, int step) {
  s->step = step;
  s->err = *__errno_location();
  _exit(127);
  return 0;
}

static int spare_child(void *arg) {
  struct spare *s = arg;
  int *out = s->out;
  clean_signals(1);
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return spare_fail(s, 1);
  if (s->private_proc && mount("proc", "/proc", "proc", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
    return spare_fail(s, 2);
  int dir = open(s->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return spare_fail(s, 3);
  if (mount("tmpfs", s->area, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k,mode=0755") != 0) return spare_fail(s, 4);
  if (mkdir(s->dir, 0700) != 0) return spare_fail(s, 5);
  char path[40];
  fd_path(path, dir);
  if (mount(path, s->dir, NULL, MS_BIND, NULL) != 0) return spare_fail(s, 6);
  close(dir);
  mount(NULL, s->area, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k,mode=0755");
  out[0] = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  out[1] = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
  out[2] = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (out[0] < 0 || out[1] < 0 || out[2] < 0) return spare_fail(s, 7);
  int life[2];
  if (pipe2(life, O_CLOEXEC) != 0) return spare_fail(s, 8);
  out[3] = life[1];
  out[4] = life[0];
  /* From here on the descriptor table is the child's own: the helper keeps the ones above. */
  if (unshare(CLONE_FILES) != 0) return spare_fail(s, 9);
  if (dup2(life[0], 0) < 0) return spare_fail(s, 10);
  int null = open("/dev/null", O_RDWR);
  if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0) return spare_fail(s, 11);
  close_from(3);
  prctl(PR_SET_PDEATHSIG, 9, 0, 0, 0);
  char *argv[] = { "dupin-run", NULL };
  char *envp[] = { NULL };
  execve(s->init, argv, envp);
  return spare_fail(s, 12);
}

/* The helper thread: nothing it execs gets a capability, uid 0 included. */
int rn_init(void) {
  for (int i = 0; i < 128; i++) all_signals[i] = 0xff;
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) return -1;
  struct cap_header h = { 0x20080522, 0 };
  struct cap_data d[2];
  if (capget(&h, d) != 0) return -2;
  d[0].inheritable = 0;
  d[1].inheritable = 0;
  if (capset(&h, d) != 0) return -3;
  for (int cap = 0; cap < 64; cap++) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -4;
  return 0;
}

/* A spare namespace; returns its init's pid, or minus the failed step (errno in out[5]). */
int rn_make(const char *area, const char *dir, const char *init, int private_proc, int *out) {
  struct spare s = { area, dir, init, private_proc, out, 0, 0 };
  for (int i = 0; i < 6; i++) out[i] = -1;
  unsigned char old[128];
  sigprocmask(SIG_BLOCK, all_signals, old);
  int pid = clone(spare_child, (char *)stack1 + sizeof(stack1),
                  CLONE_VM | CLONE_VFORK | CLONE_FILES | CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, &s);
  int err = *__errno_location();
  sigprocmask(SIG_SETMASK, old, NULL);
  if (pid < 0) { out[5] = err; return -100; }
  if (s.step != 0) {
    int status;
    waitpid(pid, &status, 0);
    out[5] = s.err;
    return -s.step;
  }
  return pid;
}

struct stage {
  int mnt;
  int pid;
  char **argv;
  char **envp;
  const char *cwd;
  int fd[3];
  int child;
  int step;
  int err;
};

static int stage_fail(struct stage *s, int step) {
  s->step = step;
  s->err = *__errno_location();
  _exit(127);
  return 0;
}

/* The tool itself: a new session (its own process group), its stdio, its cwd, then exec. */
static int stage_exec(void *arg) {
  struct stage *s = arg;
  clean_signals(1);
  setsid();
  /* Every descriptor given is above 2 (the helper's stdio is open), so no placement overwrites another. */
  for (int i = 0; i < 3; i++) {
    int fd = s->fd[i] >= 0 ? s->fd[i] : open("/dev/null", O_RDWR);
    if (fd < 0 || dup2(fd, i) < 0) return stage_fail(s, 1);
  }
  close_from(3);
  if (s->cwd[0] && chdir(s->cwd) != 0) return stage_fail(s, 2);
  execve(s->argv[0], s->argv, s->envp);
  return stage_fail(s, 3);
}

/* Joins the run's namespaces (a thread of the helper cannot) and starts the tool as the helper's child. */
static int stage_join(void *arg) {
  struct stage *s = arg;
  clean_signals(0);
  if (setns(s->mnt, CLONE_NEWNS) != 0) return stage_fail(s, 4);
  if (setns(s->pid, CLONE_NEWPID) != 0) return stage_fail(s, 5);
  s->child = clone(stage_exec, (char *)stack2 + sizeof(stack2), CLONE_VM | CLONE_VFORK | CLONE_PARENT | SIGCHLD, s);
  if (s->child < 0) return stage_fail(s, 6);
  _exit(0);
  return 0;
}

/* Starts one stage in a run's namespaces; returns its pid, or minus the failed step (errno in *err). */
int rn_spawn(int mnt, int pid, char **argv, char **envp, const char *cwd, int fd0, int fd1, int fd2, int *err) {
  struct stage s = { mnt, pid, argv, envp, cwd, { fd0, fd1, fd2 }, -1, 0, 0 };
  unsigned char old[128];
  sigprocmask(SIG_BLOCK, all_signals, old);
  int joiner = clone(stage_join, (char *)stack1 + sizeof(stack1), CLONE_VM | CLONE_VFORK | SIGCHLD, &s);
  int e = *__errno_location();
  sigprocmask(SIG_SETMASK, old, NULL);
  if (joiner < 0) { *err = e; return -100; }
  int status;
  waitpid(joiner, &status, 0);
  if (s.step != 0) {
    if (s.child > 0) waitpid(s.child, &status, 0);
    *err = s.err;
    return -s.step;
  }
  return s.child;
}

/* The pid when it has ended (status in *status), 0 while it runs, -1 when it is not ours. */
int rn_reap(int pid, int *status) {
  return waitpid(pid, status, WNOHANG);
}

int rn_pipe(int *fds) {
  return pipe2(fds, O_CLOEXEC);
}
`
