/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the vmlx KUnit suites share: putting the ports and the emulated
 * switch that a test changed back as the built-in driver made them at
 * boot (default parameters, no subnet manager), so that the suites that
 * run later see that state.
 */
#ifndef VMLX_TEST_H
#define VMLX_TEST_H

#include "vmlx_fabric.h"
#include "vmlx_sma.h"

/* A port back as it was at boot: no LID, no SM, INIT, default tables. */
static inline void vmlx_test_port_reset(struct vmlx_port *port)
{
	unsigned long flags;

	vmlx_fabric_flush();
	spin_lock_irqsave(&port->lock, flags);
	WRITE_ONCE(port->lid, 0);
	WRITE_ONCE(port->lmc, 0);
	port->sm_lid = 0;
	port->sm_sl = 0;
	port->mkey = 0;
	port->mkey_protect = 0;
	memset(port->pkeys, 0, sizeof(port->pkeys));
	WRITE_ONCE(port->pkeys[0], VMLX_DEFAULT_PKEY);
	vmlx_port_sma_init(port);
	if (port->phys_state == IB_PORT_PHYS_STATE_LINK_UP)
		WRITE_ONCE(port->state, IB_PORT_INIT);
	spin_unlock_irqrestore(&port->lock, flags);
}

/* The switch as it was at boot: nothing routed, the ports INIT. */
static inline void vmlx_test_switch_reset(struct vmlx_switch *sw)
{
	unsigned long flags;
	unsigned int i;

	vmlx_fabric_flush();
	spin_lock_irqsave(&sw->lock, flags);
	memset(sw->lft, VMLX_LFT_UNROUTED, sizeof(sw->lft));
	memset(sw->mft, 0, sizeof(sw->mft));
	WRITE_ONCE(sw->lft_top, 0);
	WRITE_ONCE(sw->lid, 0);
	sw->sm_lid = 0;
	sw->mkey = 0;
	for (i = 1; i <= sw->num_ports; i++)
		if (sw->ports[i].state != IB_PORT_DOWN)
			WRITE_ONCE(sw->ports[i].state, IB_PORT_INIT);
	spin_unlock_irqrestore(&sw->lock, flags);
}

#endif /* VMLX_TEST_H */
