/* NumPy .npy files for the CLI: read and write format versions 1.0, 2.0 and 3.0, C order,
 * rank 1 to 4, dtypes int8 ('|i1'), uint8 ('|u1'), uint16 ('<u2'), int32 ('<i4') and float32
 * ('<f4').
 *
 * The reader is strict: anything else (Fortran order, big-endian data, other dtypes, other
 * ranks, a shape above NPY_MAX_ELEMS elements, a truncated file, bytes after the array, a
 * header that is not the dict literal numpy writes) is refused with -errno and a one-line
 * message that names the field and the limit. The message never contains the file name: the
 * caller prefixes it. No function here keeps state; all are thread-safe.
 */
#ifndef TPU_CLI_NPY_H
#define TPU_CLI_NPY_H

#include <stddef.h>
#include <stdint.h>

enum npy_dtype {
	NPY_INT8,
	NPY_UINT8,
	NPY_INT32,
	NPY_FLOAT32,
	NPY_UINT16, /* '<u2': also bf16 bit patterns (tpu matmul --dtype bf16) */
};

/* Rank masks for npy_load's `ranks` argument. */
#define NPY_RANK1 (1u << 1)
#define NPY_RANK2 (1u << 2)
#define NPY_RANK3 (1u << 3)
#define NPY_RANK4 (1u << 4)
#define NPY_MAX_RANK 4

/* Largest element count accepted (2^31): keeps every index and byte count well inside size_t
 * and int64 and matches the device's 32-bit dimensions. */
#define NPY_MAX_ELEMS ((size_t)1 << 31)

/* Longest header accepted (the dict plus padding). numpy writes under 128 bytes for rank <= 2. */
#define NPY_MAX_HEADER 65536u

struct npy_array {
	enum npy_dtype dtype;
	unsigned rank;	 /* 1 .. NPY_MAX_RANK */
	size_t shape[NPY_MAX_RANK]; /* shape[0 .. rank-1]; the rest are 1 */
	size_t count;	 /* number of elements: the product of the shape */
	void *data;	 /* count elements in host byte order (int8_t, uint8_t, uint16_t, int32_t or
			  * float),
			  * owned by the array: release with npy_free(); never NULL after a
			  * successful load, even when count is 0 */
};

/* Read path into *out. ranks is a mask of NPY_RANK1 .. NPY_RANK4 the caller accepts.
 * Returns 0, or -errno with a message in err (errlen bytes, always NUL-terminated when
 * errlen > 0; err may be NULL when errlen is 0):
 *   -ENOENT, -EACCES, -EISDIR, ...  the file cannot be opened or read (strerror text)
 *   -EINVAL     not a well-formed .npy file (bad magic, bad version, bad header length,
 *               header syntax, truncated data, trailing data)
 *   -ENOTSUP    a valid .npy this reader does not handle (dtype, byte order, Fortran order,
 *               rank not in `ranks`)
 *   -EOVERFLOW  the shape has more than NPY_MAX_ELEMS elements (or its product overflows)
 *   -ENOMEM
 * On failure *out is left zeroed (nothing to free). */
int npy_load(const char *path, unsigned ranks, struct npy_array *out, char *err, size_t errlen);

/* Write a to path as format version `version` (1, 2 or 3; 0 picks 1.0, the version numpy
 * uses for small headers). The header is padded so the data starts at a multiple of 64 bytes.
 * Returns 0, or -EINVAL (bad array or version), -EOVERFLOW (count does not match the shape or
 * exceeds NPY_MAX_ELEMS), or the -errno of the failing file operation, with a message in err.
 * The file is written through tpu/outfile.h: a failure never destroys what was at path (a
 * regular file is replaced by rename only when complete; a device or FIFO is written in place,
 * never unlinked). */
int npy_save(const char *path, const struct npy_array *a, int version, char *err, size_t errlen);

/* Free the data of a loaded array and zero it; NULL and already-freed arrays are fine. */
void npy_free(struct npy_array *a);

/* Size of one element of dtype in bytes (1, 2 or 4). */
size_t npy_dtype_size(enum npy_dtype dtype);

/* "int8 ('|i1')" and so on: for messages. */
const char *npy_dtype_name(enum npy_dtype dtype);

/* Format the shape as numpy prints it, "(3,)", "(3, 4)" or "(2, 3, 4)", into buf. Returns buf. */
char *npy_shape_str(const struct npy_array *a, char *buf, size_t len);

#endif /* TPU_CLI_NPY_H */
