/* The digits loader and the fixed train/test split of sw/train (docs/models.md). The expected
 * figures were counted independently from the CSV (zcat | awk). Run from the repository root
 * (make test-c does): the data file is data/digits.csv.gz. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "train/train.h"

#define DIGITS_PATH "data/digits.csv.gz"

static const size_t class_counts[TR_DIGITS_CLASSES] = { 178, 182, 177, 183, 181,
							  182, 181, 179, 174, 180 };

static void load(struct tr_digits *d)
{
	char err[256] = "";
	int ret = tr_digits_load(DIGITS_PATH, d, err, sizeof(err));

	ck_assert_msg(ret == 0, "%s: %s (run from the repository root)", DIGITS_PATH, err);
}

START_TEST(loads_every_row)
{
	struct tr_digits d;
	size_t counts[TR_DIGITS_CLASSES];

	load(&d);
	ck_assert_uint_eq(d.n, 1797);
	tr_digits_count(&d, counts);
	for (int c = 0; c < TR_DIGITS_CLASSES; c++)
		ck_assert_uint_eq(counts[c], class_counts[c]);
	/* first row of the file: 0,0,5,13,9,1,0,0,...,0 (label 0) */
	ck_assert_uint_eq(d.x[2], 5);
	ck_assert_uint_eq(d.x[3], 13);
	ck_assert_uint_eq(d.y[0], 0);
	for (size_t i = 0; i < d.n * TR_DIGITS_PIXELS; i++)
		ck_assert_uint_le(d.x[i], 16);
	tr_digits_free(&d);
}
END_TEST

START_TEST(split_is_stratified_and_disjoint)
{
	struct tr_digits d, train, test;
	size_t tr_counts[TR_DIGITS_CLASSES], te_counts[TR_DIGITS_CLASSES];
	size_t seen[TR_DIGITS_CLASSES] = { 0 }, ti = 0, si = 0;

	load(&d);
	ck_assert_int_eq(tr_digits_split(&d, &train, &test), 0);
	ck_assert_uint_eq(train.n, 1442);
	ck_assert_uint_eq(test.n, 355);
	tr_digits_count(&train, tr_counts);
	tr_digits_count(&test, te_counts);
	for (int c = 0; c < TR_DIGITS_CLASSES; c++) {
		ck_assert_uint_eq(te_counts[c], class_counts[c] / 5);
		ck_assert_uint_eq(tr_counts[c] + te_counts[c], class_counts[c]);
	}
	/* Walk the file: the 5th, 10th, ... example of each class must be the next test row,
	 * every other example the next train row; so each row lands in exactly one set, in file
	 * order. */
	for (size_t i = 0; i < d.n; i++) {
		const uint8_t *row = d.x + i * TR_DIGITS_PIXELS;

		if (++seen[d.y[i]] % 5 == 0) {
			ck_assert_uint_lt(si, test.n);
			ck_assert_uint_eq(test.y[si], d.y[i]);
			ck_assert(!memcmp(test.x + si * TR_DIGITS_PIXELS, row, TR_DIGITS_PIXELS));
			si++;
		} else {
			ck_assert_uint_lt(ti, train.n);
			ck_assert_uint_eq(train.y[ti], d.y[i]);
			ck_assert(!memcmp(train.x + ti * TR_DIGITS_PIXELS, row, TR_DIGITS_PIXELS));
			ti++;
		}
	}
	ck_assert_uint_eq(si, test.n);
	ck_assert_uint_eq(ti, train.n);
	tr_digits_free(&train);
	tr_digits_free(&test);
	tr_digits_free(&d);
}
END_TEST

START_TEST(load_and_split_are_deterministic)
{
	struct tr_digits a, b, atr, ate, btr, bte;

	load(&a);
	load(&b);
	ck_assert_uint_eq(a.n, b.n);
	ck_assert(!memcmp(a.x, b.x, a.n * TR_DIGITS_PIXELS));
	ck_assert(!memcmp(a.y, b.y, a.n));
	ck_assert_int_eq(tr_digits_split(&a, &atr, &ate), 0);
	ck_assert_int_eq(tr_digits_split(&b, &btr, &bte), 0);
	ck_assert(!memcmp(ate.x, bte.x, ate.n * TR_DIGITS_PIXELS));
	ck_assert(!memcmp(atr.y, btr.y, atr.n));
	tr_digits_free(&a);
	tr_digits_free(&b);
	tr_digits_free(&atr);
	tr_digits_free(&ate);
	tr_digits_free(&btr);
	tr_digits_free(&bte);
}
END_TEST

/* Write text to a temporary file and load it; returns the loader's result. */
static int load_text(const char *text, char *err, size_t errlen)
{
	char path[] = "/tmp/tpu_train_csv_XXXXXX";
	struct tr_digits d;
	int fd = mkstemp(path), ret;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ret = tr_digits_load(path, &d, err, errlen);
	unlink(path);
	if (!ret) {
		ck_assert_uint_eq(d.n, 1);
		tr_digits_free(&d);
	}
	return ret;
}

/* One CSV row with every pixel = p, then the label text. */
static void row(char *buf, size_t len, const char *pixel, const char *label)
{
	size_t n = 0;

	for (int i = 0; i < TR_DIGITS_PIXELS; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s,", pixel);
	snprintf(buf + n, len - n, "%s\n", label);
}

START_TEST(bad_rows_are_refused)
{
	char buf[512], err[256];

	row(buf, sizeof(buf), "16", "9");
	ck_assert_int_eq(load_text(buf, err, sizeof(err)), 0);
	row(buf, sizeof(buf), "17", "9");
	ck_assert_int_eq(load_text(buf, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "line 1, field 1") != NULL, "%s", err);
	row(buf, sizeof(buf), "3", "10");
	ck_assert_int_eq(load_text(buf, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "field 65") != NULL, "%s", err);
	row(buf, sizeof(buf), "3", "1,2");
	ck_assert_int_eq(load_text(buf, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(load_text("1,2,3\n", err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(load_text("", err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(load_text("x\n", err, sizeof(err)), -EINVAL);
	{
		struct tr_digits d;

		ck_assert_int_eq(tr_digits_load("/nonexistent/digits.csv.gz", &d, err,
						 sizeof(err)),
				 -ENOENT);
		ck_assert_uint_eq(d.n, 0);
	}
}
END_TEST

TPU_TEST_SUITE(suite_train_data)
static Suite *suite_train_data(void)
{
	Suite *s = suite_create("train_data");
	TCase *tc = tcase_create("digits");

	tcase_add_test(tc, loads_every_row);
	tcase_add_test(tc, split_is_stratified_and_disjoint);
	tcase_add_test(tc, load_and_split_are_deterministic);
	tcase_add_test(tc, bad_rows_are_refused);
	suite_add_tcase(s, tc);
	return s;
}
