// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * vmlx user contexts.
 *
 * librxe's GET_CONTEXT carries no driver data in either direction, so a
 * context has nothing to set up yet: the core allocates and tracks it.
 * Driver data userspace sends anyway is ignored, as the soft-RoCE driver
 * does.  The rings a process maps are not filed under its context but
 * under the HCA (vmlx_mmap.c), and uverbs destroys every object of a
 * context, taking their rings' entries with them, before the context.
 */
#include "vmlx.h"

int vmlx_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	return 0;
}

void vmlx_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}
