/* Output files that never destroy data: every file the project writes (the CLI's .npy results,
 * model files, benchmark and training reports, training checkpoints) goes through this.
 *
 * The rule, decided by what is at the path when it is opened:
 *   - nothing yet, a regular file, or a symbolic link (chain) to either: the data goes to a
 *     temporary file in the directory of the final file (symbolic links followed, so a link
 *     stays a link), which is flushed (fflush + fsync) and renamed over the final name only when
 *     every byte is written; the directory is synced after the rename. Any failure removes the
 *     temporary file and leaves the old file exactly as it was. The new file keeps the old
 *     one's permission bits (and, for root, its owner); a new file gets 0666 minus the umask.
 *     (A rename gives the name a new inode: other hard links keep the old contents.)
 *   - anything else (a character or block device such as /dev/full or /dev/null, a FIFO) and
 *     every path under /dev/ or /proc/ (/dev/stdout, /dev/fd/N, /proc/self/fd/N, whatever they
 *     point to): written in place, opened without O_CREAT or O_TRUNC, never unlinked, renamed
 *     or replaced, so a failure leaves the node itself untouched (bytes a device or a FIFO
 *     already took stay taken). A socket or a device that refuses to open gives its errno.
 *   - a directory: -EISDIR, nothing touched.
 * Temporary files are named ".NAME.tpu-tmp-PID-XXXXXX" beside NAME. A writer killed by a signal
 * it cannot catch (SIGKILL, a crash) leaves its temporary file; the next tpu_outfile_open of the
 * same NAME removes every such file whose PID no longer runs. A read-only directory cannot hold
 * the temporary file: the open fails (-EACCES, -EROFS) and the old file stays as it was; the
 * file is never rewritten in place instead.
 *
 * Functions return 0 or -errno, and on failure a one-line message in err (errlen bytes, always
 * NUL-terminated when errlen > 0; err may be NULL when errlen is 0) that names the failing step
 * and says whether the file was changed; it does not repeat the path (callers prefix it). An
 * open tpu_outfile belongs to one thread; distinct ones are independent. */
#ifndef TPU_OUTFILE_H
#define TPU_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#include "tpu/tpu.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tpu_outfile;

/* Open path for writing as described above. Returns 0 with *out set, -EISDIR, -ENOMEM, or the
 * -errno of the failing stat/open/create (the path is left as it was). */
TPU_MUST_CHECK int tpu_outfile_open(const char *path, struct tpu_outfile **out, char *err,
				    size_t errlen);

/* The stream to write to (binary, fully buffered); never NULL for an open tpu_outfile. Write
 * errors are remembered and reported by tpu_outfile_commit. */
FILE *tpu_outfile_stream(struct tpu_outfile *of);

/* fwrite through the stream, remembering the errno of the first failure; 0 or -errno. */
int tpu_outfile_put(struct tpu_outfile *of, const void *data, size_t len);

/* Finish: flush, fsync and rename into place (regular targets) or flush (in place). Returns 0 or
 * the -errno of the first failing step (the temporary file is then removed). Frees of in every
 * case. */
TPU_MUST_CHECK int tpu_outfile_commit(struct tpu_outfile *of, char *err, size_t errlen);

/* Give up: close, remove the temporary file; the target stays as it was. Frees of; NULL is
 * fine. */
void tpu_outfile_abort(struct tpu_outfile *of);

/* The whole of data[0..len) to path, as open + put + commit. */
TPU_MUST_CHECK int tpu_outfile_write(const char *path, const void *data, size_t len, char *err,
				     size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* TPU_OUTFILE_H */
