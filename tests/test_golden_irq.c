/* Golden device interrupts: INT_STATUS and the MSI write after the CQE (order observed through
 * the host-memory hook), masking with a pending interrupt that fires once on unmask, and MSI
 * addresses outside every writable window or misaligned (MSI_ERR, nothing written), and a
 * refused MSI write (posted: lost, no MSI_ERR). */
#include <string.h>

#include "golden_fixture.h"
#include "harness.h"
#include "tpu/tpu_spec.h"

static struct gfx F;
static uint64_t msi_iova;
static uint32_t *msi;

static void setup(void)
{
	gfx_setup(&F, NULL);
	msi = gfx_alloc(&F, 64, &msi_iova);
	gfx_wr(&F, TPU_REG_MSI_ADDR_LO, (uint32_t)(msi_iova + 16));
	gfx_wr(&F, TPU_REG_MSI_ADDR_HI, (uint32_t)((msi_iova + 16) >> 32));
	gfx_wr(&F, TPU_REG_MSI_DATA, 0xC0DE0042);
	gfx_wr(&F, TPU_REG_MSI_CTRL, 1);
}

static void teardown(void)
{
	gfx_teardown(&F);
}

/* Number of MSI writes in the log (4-byte writes at the MSI address). */
static unsigned msi_writes(void)
{
	unsigned i, n = 0;

	for (i = 0; i < F.nlog; i++)
		if (F.log[i].dir == HOSTMEM_WRITE && F.log[i].iova == msi_iova + 16) {
			ck_assert_uint_eq(F.log[i].len, 4);
			ck_assert_uint_eq(F.log[i].first_word, 0xC0DE0042);
			n++;
		}
	return n;
}

static struct gfx_sqe irq_nop(void)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_NOP);

	GFX_SET(&s, FLAGS, TPU_SQE_FLAG_IRQ);
	return s;
}

START_TEST(msi_after_data_and_cqe)
{
	uint64_t out;
	struct gfx_sqe s;
	uint64_t cq_slot = F.q[0].cq_iova; /* first CQE */
	unsigned i, data = ~0u, cqe_lo = ~0u, cqe_hi = ~0u, irq = ~0u;

	gfx_alloc(&F, 64, &out);
	s = gfx_write_host(out, 2, 8, 0, 0, false);
	GFX_SET(&s, FLAGS, TPU_SQE_FLAG_IRQ);
	gfx_record(&F);
	gfx_ok(&F, &s);
	for (i = 0; i < F.nlog; i++) {
		const struct gfx_access *a = &F.log[i];

		if (a->dir != HOSTMEM_WRITE)
			continue;
		/* the write carrying the last data byte (rows may be merged into one write) */
		if (a->iova <= out + 15 && out + 15 < a->iova + a->len)
			data = i;
		else if (a->iova == cq_slot)
			cqe_lo = i;
		else if (a->iova == cq_slot + 12)
			cqe_hi = i;
		else if (a->iova == msi_iova + 16)
			irq = i;
	}
	/* data, then the CQE with its PHASE dword last, then the MSI */
	ck_assert_uint_lt(data, cqe_lo);
	ck_assert_uint_lt(cqe_lo, cqe_hi);
	ck_assert_uint_eq(F.log[cqe_lo].len, 12);
	ck_assert_uint_eq(F.log[cqe_hi].len, 4);
	ck_assert_uint_lt(cqe_hi, irq);
	ck_assert_uint_eq(irq, F.nlog - 1);
	ck_assert_uint_eq(msi[4], 0xC0DE0042);
	ck_assert_uint_eq(msi[3], 0);
	ck_assert_uint_eq(msi[5], 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), 1);
	ck_assert_uint_eq(msi_writes(), 1);
}
END_TEST

START_TEST(no_irq_flag_no_msi)
{
	struct gfx_sqe s = gfx_cmd(TPU_OP_NOP);

	gfx_record(&F);
	GFX_SET(&s, FLAGS, TPU_SQE_FLAG_FENCE);
	gfx_ok(&F, &s);
	ck_assert_uint_eq(msi_writes(), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), 0);
}
END_TEST

START_TEST(msi_disabled_sets_status_only)
{
	struct gfx_sqe s = irq_nop();

	gfx_wr(&F, TPU_REG_MSI_CTRL, 0);
	gfx_record(&F);
	gfx_ok(&F, &s);
	ck_assert_uint_eq(msi_writes(), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), 1);
	/* a failing command with IRQ also interrupts */
	gfx_wr(&F, TPU_REG_INT_STATUS, 1);
	GFX_SET(&s, OP0, 1);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_INVALID_FIELD);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), 1);
}
END_TEST

START_TEST(masked_pending_fires_once_on_unmask)
{
	struct gfx_sqe s = irq_nop();

	gfx_wr(&F, TPU_REG_INT_MASK, 1);
	gfx_record(&F);
	gfx_ok(&F, &s);
	gfx_ok(&F, &s);
	ck_assert_uint_eq(msi_writes(), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), 1);
	gfx_wr(&F, TPU_REG_INT_MASK, 1); /* still masked: nothing */
	ck_assert_uint_eq(msi_writes(), 0);
	gfx_wr(&F, TPU_REG_INT_MASK, 0);
	ck_assert_uint_eq(msi_writes(), 1);
	gfx_wr(&F, TPU_REG_INT_MASK, 0); /* no 1 -> 0 edge: nothing */
	ck_assert_uint_eq(msi_writes(), 1);
	/* mask and unmask with the status still set: fires again */
	gfx_wr(&F, TPU_REG_INT_MASK, 1);
	gfx_wr(&F, TPU_REG_INT_MASK, 0);
	ck_assert_uint_eq(msi_writes(), 2);
	/* nothing pending: unmask does not fire */
	gfx_wr(&F, TPU_REG_INT_STATUS, 1);
	gfx_wr(&F, TPU_REG_INT_MASK, 1);
	gfx_wr(&F, TPU_REG_INT_MASK, 0);
	ck_assert_uint_eq(msi_writes(), 2);
	/* unmasked: every IRQ completion sends one */
	gfx_ok(&F, &s);
	gfx_ok(&F, &s);
	ck_assert_uint_eq(msi_writes(), 4);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
}
END_TEST

START_TEST(unmask_while_disabled_does_not_fire)
{
	struct gfx_sqe s = irq_nop();

	gfx_wr(&F, TPU_REG_INT_MASK, 1);
	gfx_ok(&F, &s);
	gfx_disable(&F);
	gfx_record(&F);
	gfx_wr(&F, TPU_REG_INT_MASK, 0);
	ck_assert_uint_eq(F.nlog, 0);
}
END_TEST

/* The MSI address is set by msi_off from the MSI buffer, the windows by the caller. */
static void expect_msi_err(void)
{
	struct gfx_sqe s = irq_nop();
	struct gfx_cqe c;

	gfx_record(&F);
	ck_assert_uint_eq(gfx_exec(&F, &s, &c), TPU_SC_SUCCESS);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), TPU_GSTAT_MSI_ERR_MASK);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), 1);
	for (unsigned i = 0; i < 16; i++)
		ck_assert_uint_eq(msi[i], 0);
	/* only the SQE fetch and the two CQE writes reached host memory */
	ck_assert_uint_eq(F.nlog, 3);
}

START_TEST(msi_outside_window)
{
	gfx_window(&F, 0, F.q[0].sq_iova, msi_iova + 16 + 2, 0x80000003u); /* ends 1 byte short */
	expect_msi_err();
}
END_TEST

START_TEST(msi_read_only_window)
{
	gfx_window(&F, 0, GFX_IOVA_BASE, GFX_IOVA_BASE + GFX_ARENA_SIZE - 1,
		   TPU_WIN_PERM_VALID_MASK | TPU_WIN_PERM_R_MASK);
	expect_msi_err();
}
END_TEST

START_TEST(msi_misaligned)
{
	gfx_wr(&F, TPU_REG_MSI_ADDR_LO, (uint32_t)(msi_iova + 18));
	expect_msi_err();
}
END_TEST

/* The MSI is a posted write: one that host memory refuses is lost, and the device cannot see
 * that (no MSI_ERR, which stays for its own address checks). */
START_TEST(msi_refused_is_lost)
{
	gfx_fail_range(&F, msi_iova, 64, HOSTMEM_WRITE, false);
	struct gfx_sqe s = irq_nop();
	gfx_record(&F);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SUCCESS);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_GSTAT), 0);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_INT_STATUS), 1);
	ck_assert_uint_eq(gfx_rd(&F, TPU_REG_CSTS), TPU_CSTS_RDY_MASK);
	/* the MSI was sent (after SQE fetch and CQE) and nothing of the buffer changed */
	ck_assert_uint_eq(F.nlog, 4);
	ck_assert_uint_eq(msi_writes(), 1);
	for (unsigned i = 0; i < 16; i++)
		ck_assert_uint_eq(msi[i], 0);
	/* with the fault gone the next interrupt lands */
	gfx_fail_off(&F);
	ck_assert_uint_eq(gfx_exec(&F, &s, NULL), TPU_SC_SUCCESS);
	ck_assert_uint_eq(msi[4], 0xC0DE0042);
}
END_TEST

static Suite *build(const char *name, enum gfx_backend be)
{
	Suite *s = suite_create(name);
	TCase *tc = tcase_create("irq");

	if (!gfx_backend_has(be, NULL))
		return s;
	tcase_add_checked_fixture(tc, be == GFX_SIM ? gfx_use_sim : gfx_use_golden, NULL);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, msi_after_data_and_cqe);
	tcase_add_test(tc, no_irq_flag_no_msi);
	tcase_add_test(tc, msi_disabled_sets_status_only);
	tcase_add_test(tc, masked_pending_fires_once_on_unmask);
	tcase_add_test(tc, unmask_while_disabled_does_not_fire);
	tcase_add_test(tc, msi_outside_window);
	tcase_add_test(tc, msi_read_only_window);
	tcase_add_test(tc, msi_misaligned);
	tcase_add_test(tc, msi_refused_is_lost);
	suite_add_tcase(s, tc);
	return s;
}

TPU_TEST_SUITE(suite_golden_irq)
static Suite *suite_golden_irq(void)
{
	return build("golden_irq", GFX_GOLDEN);
}

/* The same tests on the Verilated device, checked against a golden shadow (golden_fixture.h). */
TPU_TEST_SUITE(suite_sim_golden_irq)
static Suite *suite_sim_golden_irq(void)
{
	return build("sim_golden_irq", GFX_SIM);
}
