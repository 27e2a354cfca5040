/* Output files never destroy data (include/tpu/outfile.h), through the writers that use it: the
 * CLI's npy_save and tpu_model_save. A full disk (a small tmpfs, else RLIMIT_FSIZE in a child), a
 * copy of /dev/full made with mknod, a FIFO whose reader leaves, a read-only directory as a
 * non-root user and a SIGKILL in the middle of a write each leave the old file, node or FIFO as
 * it was, and no temporary file that the next write does not remove. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "model_fixture.h"
#include "cli/npy.h"
#include "tpu/model.h"
#include "tpu/outfile.h"

static const char old_text[] = "the old contents, which must survive";

struct scratch {
	char dir[64];
	char path[160];
	bool mounted;
};

static void scratch_init(struct scratch *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "/tmp/tpu-outfile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(s->dir));
	snprintf(s->path, sizeof(s->path), "%s/out.npy", s->dir);
}

static const char *in_dir(struct scratch *s, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", s->dir, name);
	return buf;
}

static void scratch_fini(struct scratch *s)
{
	DIR *d;
	struct dirent *e;
	char p[512];

	if (s->mounted)
		umount(s->dir);
	chmod(s->dir, 0700);
	d = opendir(s->dir);
	while (d && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", s->dir, e->d_name);
			unlink(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(s->dir);
}

static void put_old(const char *path)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(old_text, 1, sizeof(old_text), f), sizeof(old_text));
	ck_assert_int_eq(fclose(f), 0);
}

static void expect_old(const char *path)
{
	char buf[sizeof(old_text) + 16];
	FILE *f = fopen(path, "rb");
	size_t n;

	ck_assert_msg(f != NULL, "%s is gone: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ck_assert_msg(n == sizeof(old_text) && !memcmp(buf, old_text, n),
		      "%s: the old contents were destroyed (%zu bytes now)", path, n);
}

/* Temporary files (".NAME.tpu-tmp-PID-XXXXXX") in dir. */
static unsigned litter(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		if (strstr(e->d_name, ".tpu-tmp-"))
			n++;
	closedir(d);
	return n;
}

/* An int8 array of count elements (all 5). */
static int save_i8(const char *path, size_t count, char *err, size_t errlen)
{
	struct npy_array a = { .dtype = NPY_INT8, .rank = 1, .shape = { count, 1, 1, 1 } };
	int rc;

	a.count = count;
	a.data = malloc(count ? count : 1);
	ck_assert_ptr_nonnull(a.data);
	memset(a.data, 5, count);
	rc = npy_save(path, &a, 0, err, errlen);
	free(a.data);
	return rc;
}

static void expect_new(const char *path, size_t count)
{
	struct npy_array a;
	char err[256];

	ck_assert_msg(npy_load(path, NPY_RANK1, &a, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(a.count, count);
	npy_free(&a);
}

/* ---------------------------------------------------------------- regular files and links */

START_TEST(replace_keeps_mode_and_links)
{
	struct scratch s;
	char err[256], link[200], dangling[200], target[200];
	struct stat st;

	scratch_init(&s);
	put_old(s.path);
	ck_assert_int_eq(chmod(s.path, 0640), 0);
	ck_assert_int_eq(save_i8(s.path, 10, err, sizeof(err)), 0);
	expect_new(s.path, 10);
	ck_assert_int_eq(stat(s.path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	/* through a symbolic link: the link stays, its target is replaced */
	ck_assert_int_eq(symlink("out.npy", in_dir(&s, "link.npy", link, sizeof(link))), 0);
	ck_assert_int_eq(save_i8(link, 20, err, sizeof(err)), 0);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	expect_new(s.path, 20);
	/* a dangling link: its target is created */
	ck_assert_int_eq(symlink("new.npy", in_dir(&s, "dangling.npy", dangling, sizeof(dangling))),
			 0);
	ck_assert_int_eq(save_i8(dangling, 3, err, sizeof(err)), 0);
	expect_new(in_dir(&s, "new.npy", target, sizeof(target)), 3);
	ck_assert_int_eq(lstat(dangling, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	/* a directory is refused and stays */
	ck_assert_int_eq(save_i8(s.dir, 3, err, sizeof(err)), -EISDIR);
	ck_assert_int_eq(stat(s.dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(litter(s.dir), 0);
	scratch_fini(&s);
}
END_TEST

/* ---------------------------------------------------------------- full disk */

/* The write of a file bigger than the space left fails and keeps the old file: on a 64 KiB
 * tmpfs when one can be mounted, else in a child whose RLIMIT_FSIZE is 64 KiB (EFBIG). */
START_TEST(full_disk_keeps_old_file)
{
	struct scratch s;
	char err[256];
	int rc;

	scratch_init(&s);
	s.mounted = mount("tmpfs", s.dir, "tmpfs", 0, "size=64k") == 0;
	put_old(s.path);
	if (s.mounted) {
		rc = save_i8(s.path, 1u << 20, err, sizeof(err));
		ck_assert_msg(rc == -ENOSPC, "rc %d: %s", rc, err);
		ck_assert_ptr_nonnull(strstr(err, "not changed"));
	} else {
		pid_t pid;
		int status;

		fprintf(stderr, "note: full_disk_keeps_old_file: no tmpfs (%s), RLIMIT_FSIZE used\n",
			strerror(errno));
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			struct rlimit rl = { 64 << 10, 64 << 10 };
			signal(SIGXFSZ, SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &rl);
			_exit(save_i8(s.path, 1u << 20, err, sizeof(err)) == -EFBIG ? 0 : 1);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "the write past RLIMIT_FSIZE did not fail with EFBIG");
	}
	expect_old(s.path);
	ck_assert_uint_eq(litter(s.dir), 0);
	scratch_fini(&s);
}
END_TEST

/* ---------------------------------------------------------------- devices and FIFOs */

START_TEST(device_nodes_written_in_place)
{
	struct scratch s;
	char err[256], full[200];
	struct stat st;
	uint64_t seed = 1;
	struct tpu_model *m;
	int rc;

	scratch_init(&s);
	ck_assert_int_eq(save_i8("/dev/null", 100, err, sizeof(err)), 0);
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	in_dir(&s, "full", full, sizeof(full));
	if (mknod(full, S_IFCHR | 0666, makedev(1, 7))) {
		fprintf(stderr, "note: device_nodes_written_in_place: no /dev/full copy (mknod: %s): "
				"that part skipped\n", strerror(errno));
		scratch_fini(&s);
		return;
	}
	rc = save_i8(full, 100, err, sizeof(err));
	ck_assert_msg(rc == -ENOSPC, "rc %d: %s", rc, err);
	ck_assert_msg(stat(full, &st) == 0, "the device node was removed");
	ck_assert_msg(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7),
		      "the device node was replaced");
	/* the model writer follows the same rule (it used to rename a regular file over it) */
	m = mfx_small(&seed);
	rc = tpu_model_save(m, full, err, sizeof(err));
	ck_assert_msg(rc == -EIO && strstr(err, "No space left"), "rc %d: %s", rc, err);
	ck_assert_int_eq(stat(full, &st), 0);
	ck_assert(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7));
	tpu_model_free(m);
	ck_assert_uint_eq(litter(s.dir), 0);
	scratch_fini(&s);
}
END_TEST

/* A FIFO whose reader leaves after one byte: the write fails (EPIPE), the FIFO stays. */
START_TEST(fifo_written_in_place)
{
	struct scratch s;
	char err[256], fifo[200];
	struct stat st;
	pid_t pid;
	int rc, status;

	scratch_init(&s);
	in_dir(&s, "pipe", fifo, sizeof(fifo));
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char c;
		int fd = open(fifo, O_RDONLY);
		_exit(fd >= 0 && read(fd, &c, 1) == 1 ? 0 : 1);
	}
	signal(SIGPIPE, SIG_IGN);
	rc = save_i8(fifo, 1u << 20, err, sizeof(err));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(rc == -EPIPE, "rc %d: %s", rc, err);
	ck_assert_msg(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
	/* a reader that takes everything: the array arrives whole (as long as in a file) */
	char plain[200];
	ck_assert_int_eq(save_i8(in_dir(&s, "plain.npy", plain, sizeof(plain)), 1000, err,
				 sizeof(err)), 0);
	ck_assert_int_eq(stat(plain, &st), 0);
	off_t want = st.st_size;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char buf[4096];
		size_t total = 0;
		ssize_t n;
		int fd = open(fifo, O_RDONLY);
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			total += (size_t)n;
		_exit(total == (size_t)want ? 0 : 1);
	}
	ck_assert_int_eq(save_i8(fifo, 1000, err, sizeof(err)), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(stat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	scratch_fini(&s);
}
END_TEST

/* ---------------------------------------------------------------- read-only directory */

/* As a user who may write the file but not its directory: refused, the file unchanged (never
 * rewritten in place). Root drops to nobody in a child; without a uid to drop to, skipped. */
START_TEST(read_only_dir_refused)
{
	struct scratch s;
	struct passwd *pw = getpwnam("nobody");
	pid_t pid;
	int status;

	scratch_init(&s);
	put_old(s.path);
	if (geteuid() == 0) {
		if (!pw) {
			fprintf(stderr, "note: read_only_dir_refused: no user 'nobody': skipped\n");
			scratch_fini(&s);
			return;
		}
		/* the directory stays root's (0755), the file becomes nobody's */
		ck_assert_int_eq(chown(s.path, pw->pw_uid, pw->pw_gid), 0);
		ck_assert_int_eq(chmod(s.dir, 0755), 0);
	} else {
		ck_assert_int_eq(chmod(s.dir, 0555), 0);
	}
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char err[256];
		int rc;
		if (geteuid() == 0 && (setgid(pw->pw_gid) || setuid(pw->pw_uid)))
			_exit(3);
		rc = save_i8(s.path, 100, err, sizeof(err));
		_exit(rc == -EACCES && strstr(err, "nothing was written") ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) != 3, "could not drop to nobody");
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "a write into a read-only directory did not fail with EACCES");
	expect_old(s.path);
	ck_assert_uint_eq(litter(s.dir), 0);
	scratch_fini(&s);
}
END_TEST

/* ---------------------------------------------------------------- killed writer */

/* The target is either the old file or nothing has happened yet: true once the write started
 * (a temporary file exists, or the target changed). */
static bool write_started(const struct scratch *s)
{
	struct stat st;

	if (litter(s->dir))
		return true;
	return stat(s->path, &st) != 0 || st.st_size != (off_t)sizeof(old_text);
}

/* SIGKILL in the middle of a 64 MiB write: the old file is intact; the killed writer's
 * temporary file is the only litter, and the next write removes it. */
START_TEST(kill_mid_write_keeps_old)
{
	struct scratch s;
	char err[256];
	bool killed = false;

	scratch_init(&s);
	put_old(s.path);
	for (int attempt = 0; attempt < 5 && !killed; attempt++) {
		int status;
		pid_t pid = fork();

		ck_assert_int_ge(pid, 0);
		if (pid == 0)
			_exit(save_i8(s.path, (size_t)64 << 20, err, sizeof(err)) ? 1 : 0);
		while (!write_started(&s) && waitpid(pid, &status, WNOHANG) == 0)
			;
		kill(pid, SIGKILL);
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		killed = WIFSIGNALED(status);
		if (!killed)
			put_old(s.path); /* it finished first: try again */
	}
	ck_assert_msg(killed, "the writer always finished before it could be killed");
	expect_old(s.path);
	ck_assert_uint_le(litter(s.dir), 1);
	/* the next write removes what the dead writer left */
	ck_assert_int_eq(save_i8(s.path, 7, err, sizeof(err)), 0);
	expect_new(s.path, 7);
	ck_assert_uint_eq(litter(s.dir), 0);
	scratch_fini(&s);
}
END_TEST

/* ---------------------------------------------------------------- the helper itself */

START_TEST(abort_and_errors)
{
	struct scratch s;
	struct tpu_outfile *of;
	char err[256], sub[200];

	scratch_init(&s);
	put_old(s.path);
	ck_assert_int_eq(tpu_outfile_open(s.path, &of, err, sizeof(err)), 0);
	ck_assert_int_eq(tpu_outfile_put(of, "partial", 7), 0);
	ck_assert_uint_eq(litter(s.dir), 1);
	tpu_outfile_abort(of);
	expect_old(s.path);
	ck_assert_uint_eq(litter(s.dir), 0);
	tpu_outfile_abort(NULL);
	/* a missing directory, a path under /dev/ that does not exist: nothing is created */
	in_dir(&s, "no/such/dir/x.npy", sub, sizeof(sub));
	ck_assert_int_eq(tpu_outfile_open(sub, &of, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(tpu_outfile_open("/dev/tpu-no-such-node", &of, err, sizeof(err)), -ENOENT);
	ck_assert_int_eq(access("/dev/tpu-no-such-node", F_OK), -1);
	ck_assert_int_eq(tpu_outfile_open("", &of, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(tpu_outfile_write(s.path, "x", 1, err, sizeof(err)), 0);
	scratch_fini(&s);
}
END_TEST

TPU_TEST_SUITE(outfile_suite)
static Suite *outfile_suite(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, replace_keeps_mode_and_links);
	tcase_add_test(tc, full_disk_keeps_old_file);
	tcase_add_test(tc, device_nodes_written_in_place);
	tcase_add_test(tc, fifo_written_in_place);
	tcase_add_test(tc, read_only_dir_refused);
	tcase_add_test(tc, kill_mid_write_keeps_old);
	tcase_add_test(tc, abort_and_errors);
	suite_add_tcase(s, tc);
	return s;
}
