/* Output files that never destroy data; the rule is in include/tpu/outfile.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tpu/outfile.h"

#define TMP_TAG ".tpu-tmp-"
#define MAX_LINKS 40

struct tpu_outfile {
	FILE *f;
	bool in_place;
	int werr;    /* errno of the first failed put, 0 if none */
	char *final; /* the file that is replaced (regular mode) */
	char *dir;   /* its directory */
	char *tmp;   /* the temporary file (regular mode) */
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static bool special_path(const char *p)
{
	return !strncmp(p, "/dev/", 5) || !strncmp(p, "/proc/", 6);
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* The directory part of p ("." when there is none). */
static char *dir_of(const char *p)
{
	const char *slash = strrchr(p, '/');

	if (!slash)
		return dup_n(".", 1);
	return dup_n(p, slash == p ? 1 : (size_t)(slash - p));
}

static const char *base_of(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash ? slash + 1 : p;
}

/* Follow a dangling symbolic link chain from path to the name a creating open would create.
 * Returns a malloc'd path, or NULL with errno set. */
static char *follow_dangling(const char *path)
{
	char *cur = strdup(path);
	int e = cur ? ELOOP : ENOMEM;

	for (int hop = 0; cur && hop < MAX_LINKS; hop++) {
		struct stat st;
		char link[PATH_MAX], *next;
		ssize_t n;

		if (lstat(cur, &st)) {
			if (errno == ENOENT)
				return cur;
			e = errno;
			break;
		}
		if (!S_ISLNK(st.st_mode)) {
			e = EEXIST; /* it appeared meanwhile */
			break;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0) {
			e = errno;
			break;
		}
		link[n] = '\0';
		if (link[0] == '/') {
			next = strdup(link);
		} else {
			char *d = dir_of(cur);
			size_t len = d ? strlen(d) + 1 + (size_t)n + 1 : 0;
			next = d ? malloc(len) : NULL;
			if (next)
				snprintf(next, len, "%s/%s", d, link);
			free(d);
		}
		free(cur);
		cur = next;
		if (!cur)
			e = ENOMEM;
	}
	free(cur);
	errno = e;
	return NULL;
}

/* Remove temporary files of base in dir left by writers that no longer run. */
static void remove_stale(const char *dir, const char *base)
{
	size_t plen = strlen(base) + sizeof(TMP_TAG);
	char *prefix = malloc(plen + 1);
	DIR *d;
	struct dirent *e;

	if (!prefix)
		return;
	snprintf(prefix, plen + 1, ".%s%s", base, TMP_TAG);
	d = opendir(dir);
	while (d && (e = readdir(d)) != NULL) {
		char *end;
		long pid;

		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		errno = 0;
		pid = strtol(e->d_name + strlen(prefix), &end, 10);
		if (errno || pid <= 0 || *end != '-' || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		(void)unlinkat(dirfd(d), e->d_name, 0);
	}
	if (d)
		closedir(d);
	free(prefix);
}

/* Create the temporary file beside of->final; 0 with *fd, or -errno. */
static int make_tmp(struct tpu_outfile *of, int *fd)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *base = base_of(of->final);
	size_t len = strlen(of->dir) + strlen(base) + sizeof(TMP_TAG) + 32;

	of->tmp = malloc(len);
	if (!of->tmp)
		return -ENOMEM;
	for (int attempt = 0; attempt < 100; attempt++) {
		unsigned char r[6];
		char suffix[7];

		if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
			uint64_t t = (uint64_t)time(NULL) ^ (uint64_t)clock() ^
				     ((uint64_t)attempt << 40) ^ (uint64_t)(uintptr_t)of;
			memcpy(r, &t, sizeof(r));
		}
		for (int i = 0; i < 6; i++)
			suffix[i] = set[r[i] % (sizeof(set) - 1)];
		suffix[6] = '\0';
		snprintf(of->tmp, len, "%s/.%s%s%ld-%s", of->dir, base, TMP_TAG, (long)getpid(),
			 suffix);
		*fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
		if (*fd >= 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

static void outfile_free(struct tpu_outfile *of)
{
	free(of->final);
	free(of->dir);
	free(of->tmp);
	free(of);
}

static int open_in_place(struct tpu_outfile *of, const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;
		return fail(err, errlen, -e, "cannot open for writing: %s", strerror(e));
	}
	of->in_place = true;
	of->f = fdopen(fd, "wb");
	if (!of->f) {
		close(fd);
		return fail(err, errlen, -ENOMEM, "out of memory");
	}
	return 0;
}

static int open_regular(struct tpu_outfile *of, const struct stat *old, char *err, size_t errlen)
{
	int fd = -1, rc;

	of->dir = dir_of(of->final);
	if (!of->dir)
		return fail(err, errlen, -ENOMEM, "out of memory");
	remove_stale(of->dir, base_of(of->final));
	rc = make_tmp(of, &fd);
	if (rc)
		return fail(err, errlen, rc,
			    "cannot create a temporary file in %s: %s (nothing was written)",
			    of->dir, strerror(-rc));
	if (old) {
		/* the replacement looks like the file it replaces (chown first: it clears S_ISUID) */
		if (geteuid() == 0)
			(void)fchown(fd, old->st_uid, old->st_gid);
		(void)fchmod(fd, old->st_mode & 07777);
	}
	of->f = fdopen(fd, "wb");
	if (!of->f) {
		close(fd);
		unlink(of->tmp);
		return fail(err, errlen, -ENOMEM, "out of memory");
	}
	return 0;
}

int tpu_outfile_open(const char *path, struct tpu_outfile **out, char *err, size_t errlen)
{
	struct tpu_outfile *of;
	struct stat st;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return fail(err, errlen, -EINVAL, "no result pointer");
	*out = NULL;
	if (!path || !*path)
		return fail(err, errlen, -EINVAL, "empty file name");
	of = calloc(1, sizeof(*of));
	if (!of)
		return fail(err, errlen, -ENOMEM, "out of memory");
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			rc = fail(err, errlen, -EISDIR, "is a directory");
		else if (!S_ISREG(st.st_mode) || special_path(path))
			rc = open_in_place(of, path, err, errlen);
		else if (!(of->final = realpath(path, NULL)))
			rc = fail(err, errlen, -errno, "cannot resolve: %s", strerror(errno));
		else
			rc = open_regular(of, &st, err, errlen);
	} else if (errno != ENOENT) {
		int e = errno;
		rc = fail(err, errlen, -e, "cannot look up: %s", strerror(e));
	} else if (special_path(path)) {
		rc = fail(err, errlen, -ENOENT, "does not exist (nothing under /dev/ or /proc/ is "
						"created)");
	} else if (!(of->final = follow_dangling(path))) {
		int e = errno;
		rc = fail(err, errlen, -e, "cannot follow the symbolic link: %s", strerror(e));
	} else {
		rc = open_regular(of, NULL, err, errlen);
	}
	if (rc) {
		outfile_free(of);
		return rc;
	}
	*out = of;
	return 0;
}

FILE *tpu_outfile_stream(struct tpu_outfile *of)
{
	return of ? of->f : NULL;
}

int tpu_outfile_put(struct tpu_outfile *of, const void *data, size_t len)
{
	if (!of || !of->f)
		return -EINVAL;
	if (of->werr)
		return -of->werr;
	errno = 0;
	if (len && fwrite(data, 1, len, of->f) != len) {
		of->werr = errno ? errno : EIO;
		return -of->werr;
	}
	return 0;
}

/* fsync where the node supports it (devices and FIFOs may not). */
static int sync_fd(int fd)
{
	if (fsync(fd) == 0 || errno == EINVAL || errno == EROFS || errno == ENOTSUP)
		return 0;
	return -errno;
}

static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int tpu_outfile_commit(struct tpu_outfile *of, char *err, size_t errlen)
{
	const char *what = "write";
	int rc = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!of)
		return fail(err, errlen, -EINVAL, "no file");
	errno = 0;
	if (of->werr)
		rc = -of->werr;
	else if (fflush(of->f) || ferror(of->f))
		rc = -(errno ? errno : EIO);
	if (!rc && !of->in_place) {
		what = "sync";
		rc = sync_fd(fileno(of->f));
	}
	if (!rc) {
		FILE *f = of->f;
		what = "close";
		of->f = NULL;
		errno = 0;
		if (fclose(f))
			rc = -(errno ? errno : EIO);
	}
	if (!rc && !of->in_place) {
		what = "rename";
		if (rename(of->tmp, of->final))
			rc = -errno;
		else
			sync_dir(of->dir);
	}
	if (rc) {
		if (of->in_place)
			fail(err, errlen, rc, "%s failed: %s", what, strerror(-rc));
		else
			fail(err, errlen, rc, "%s failed: %s (the file was not changed)", what,
			     strerror(-rc));
		tpu_outfile_abort(of);
		return rc;
	}
	outfile_free(of);
	return 0;
}

void tpu_outfile_abort(struct tpu_outfile *of)
{
	if (!of)
		return;
	if (of->f)
		fclose(of->f);
	if (of->tmp)
		unlink(of->tmp);
	outfile_free(of);
}

int tpu_outfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	struct tpu_outfile *of;
	int rc = tpu_outfile_open(path, &of, err, errlen);

	if (rc)
		return rc;
	(void)tpu_outfile_put(of, data, len); /* a failure is reported by the commit */
	return tpu_outfile_commit(of, err, errlen);
}
