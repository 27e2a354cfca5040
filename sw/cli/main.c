/* `tpu`: the command-line front end of the tpu driver: cli_main (sw/cli/cli_main.c) parses the
 * command line and runs the command; this file is only the process entry, so that the fuzzer
 * (tests/fuzz/fuzz_cli.c) can call cli_main itself. */
#include "cli.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv);
}
