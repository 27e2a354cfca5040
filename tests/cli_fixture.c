/* The CLI test fixture; see cli_fixture.h. */
#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_fixture.h"
#include "harness.h"

extern char **environ;

void cli_dir_init(struct cli_dir *d, const char *tag) {
  memset(d, 0, sizeof(*d));
  snprintf(d->dir, sizeof(d->dir), "/tmp/tpu-%s-XXXXXX", tag);
  ck_assert_ptr_nonnull(mkdtemp(d->dir));
  unsetenv("TPU_DEVICE");
}

void cli_dir_fini(struct cli_dir *d) {
  DIR *dp = opendir(d->dir);
  if (dp) {
    struct dirent *e;
    char p[512];
    while ((e = readdir(dp))) {
      if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
        continue;
      snprintf(p, sizeof(p), "%s/%s", d->dir, e->d_name);
      unlink(p);
    }
    closedir(dp);
  }
  rmdir(d->dir);
}

const char *cli_dir_path(struct cli_dir *d, const char *name) {
  ck_assert_int_lt(d->used, CLI_DIR_SLOTS);
  char dir[sizeof(d->dir)];
  memcpy(dir, d->dir,
         sizeof(dir)); /* a separate source keeps -Wrestrict quiet */
  char *p = d->slot[d->used++];
  snprintf(p, sizeof(d->slot[0]), "%s/%s", dir, name);
  return p;
}

/* Read what fd (a temporary file) holds into buf, NUL-terminated. */
static void slurp_fd(int fd, char *buf, size_t len) {
  size_t n = 0;
  ssize_t got;
  lseek(fd, 0, SEEK_SET);
  while (n + 1 < len && (got = read(fd, buf + n, len - 1 - n)) > 0)
    n += (size_t)got;
  buf[n] = '\0';
}

void cli_run_args(struct cli_run *r, const char *const *args) {
  const char *cli = getenv("TPU_CLI");
  ck_assert_msg(cli != NULL, "TPU_CLI is not set (run through make test-c)");
  char *argv[40], out_tmpl[] = "/tmp/tpu-cli-out-XXXXXX",
                  err_tmpl[] = "/tmp/tpu-cli-err-XXXXXX";
  int n = 0;
  argv[n++] = (char *)(uintptr_t)cli;
  for (; *args; args++) {
    ck_assert_int_lt(n, 39);
    argv[n++] = (char *)(uintptr_t)*args;
  }
  argv[n] = NULL;
  /* unlinked temporary files: nothing is left behind, whatever the test does */
  int fo = mkstemp(out_tmpl), fe = mkstemp(err_tmpl);
  ck_assert(fo >= 0 && fe >= 0);
  unlink(out_tmpl);
  unlink(err_tmpl);
  posix_spawn_file_actions_t fa;
  ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fo, 1);
  posix_spawn_file_actions_adddup2(&fa, fe, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, cli, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  ck_assert_msg(rc == 0, "cannot run %s: %s", cli, strerror(rc));
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status), "%s died with signal %d", cli,
                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r->code = WEXITSTATUS(status);
  slurp_fd(fo, r->out, sizeof(r->out));
  slurp_fd(fe, r->err, sizeof(r->err));
  close(fo);
  close(fe);
}

void cli_expect_fail(const struct cli_run *r, int code, const char *prefix,
                     const char *want1, const char *want2) {
  if (code < 0)
    ck_assert_msg(r->code != 0, "exit 0; stderr '%s'", r->err);
  else
    ck_assert_msg(r->code == code, "exit %d (want %d); stderr '%s'", r->code,
                  code, r->err);
  ck_assert_msg(r->out[0] == '\0', "stdout not empty: '%s'", r->out);
  size_t len = strlen(r->err);
  ck_assert_msg(len > 0 && r->err[len - 1] == '\n' &&
                    !memchr(r->err, '\n', len - 1),
                "stderr is not one line: '%s'", r->err);
  ck_assert_msg(!strncmp(r->err, prefix, strlen(prefix)),
                "stderr does not start with '%s': '%s'", prefix, r->err);
  ck_assert_msg(strstr(r->err, want1), "stderr '%s' lacks '%s'", r->err, want1);
  if (want2)
    ck_assert_msg(strstr(r->err, want2), "stderr '%s' lacks '%s'", r->err,
                  want2);
}

void cli_expect_ok(const struct cli_run *r) {
  ck_assert_msg(r->code == 0, "exit %d; stderr '%s'", r->code, r->err);
  ck_assert_msg(r->err[0] == '\0', "stderr not empty: '%s'", r->err);
}
