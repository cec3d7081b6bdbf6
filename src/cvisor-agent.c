/* cvisor-agent: libcvisor's file agent, run inside a sandbox (see
 * cvisor-binary.h and sandbox/keeper.h); not for users. */
#include "config.h"

#include "cvisor-binary.h"

int main(int argc, char **argv)
{
	return cv_sandbox_agent(argc, argv);
}
