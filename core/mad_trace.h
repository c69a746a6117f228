/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Tracepoints of the MAD layer (system "ib_mad", the events and names of
 * upstream's, with fields of ours): agents made and unregistered, MADs
 * posted on QP0, QP1 or a redirect QP and their send completions, MADs
 * received, the agent callbacks, and the directed-route SMPs in and out.
 * mad.c defines them (CREATE_TRACE_POINTS) and is their only user.
 *
 * Locking: none.  The events only read what their caller holds: a send
 * that is tracked, a receive buffer that is the caller's, an agent with a
 * reference.
 *
 * TRACE_INCLUDE_PATH is this directory, found through the -I$(src) that
 * core/Kbuild gives mad.o, in a kernel tree and out of tree alike.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_mad

#if !defined(IB_CORE_MAD_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define IB_CORE_MAD_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "mad_priv.h"

/* A send: its QP, agent, MAD header, timeout and destination. */
DECLARE_EVENT_CLASS(ib_mad_send_template,
		    TP_PROTO(const struct ib_mad_send_wr_private *wr),
		    TP_ARGS(wr),
		    TP_STRUCT__entry(__field(u32, dev_index)
				     __field(u32, port_num)
				     __field(u32, qp_num)
				     __field(u32, hi_tid)
				     __field(u64, tid)
				     __field(u8, base_version)
				     __field(u8, mgmt_class)
				     __field(u8, class_version)
				     __field(u8, method)
				     __field(u16, status)
				     __field(u16, attr_id)
				     __field(u32, attr_mod)
				     __field(u32, length)
				     __field(int, timeout_ms)
				     __field(int, retries_left)
				     __field(int, retries)
				     __field(u32, dlid)
				     __field(u32, remote_qpn)
				     __field(u32, remote_qkey)
				     __field(u16, pkey_index)),
		    TP_fast_assign(const struct ib_mad_hdr *hdr =
						(const struct ib_mad_hdr *)wr->mad;

				   __entry->dev_index =
					wr->mad_agent_priv->agent.device->index;
				   __entry->port_num =
					wr->mad_agent_priv->agent.port_num;
				   __entry->qp_num =
					wr->mad_agent_priv->qp_info->qp->qp_num;
				   __entry->hi_tid =
					wr->mad_agent_priv->agent.hi_tid;
				   __entry->tid = be64_to_cpu(hdr->tid);
				   __entry->base_version = hdr->base_version;
				   __entry->mgmt_class = hdr->mgmt_class;
				   __entry->class_version = hdr->class_version;
				   __entry->method = hdr->method;
				   __entry->status = be16_to_cpu(hdr->status);
				   __entry->attr_id = be16_to_cpu(hdr->attr_id);
				   __entry->attr_mod = be32_to_cpu(hdr->attr_mod);
				   __entry->length = wr->send_buf.hdr_len +
						     wr->send_buf.data_len;
				   __entry->timeout_ms = wr->send_buf.timeout_ms;
				   __entry->retries_left = wr->retries_left;
				   __entry->retries = wr->send_buf.retries;
				   /* LID-routed sends only: it checks answers */
				   __entry->dlid = wr->check_lid ? wr->dlid : 0;
				   __entry->remote_qpn = wr->send_wr.remote_qpn;
				   __entry->remote_qkey = wr->send_wr.remote_qkey;
				   __entry->pkey_index = wr->send_wr.pkey_index;),
		    TP_printk("%u:%u QP%u agent 0x%x: tid 0x%016llx base_ver 0x%x class 0x%02x class_ver 0x%x method 0x%02x status 0x%04x attr_id 0x%04x attr_mod 0x%08x length %u timeout %d ms retries %d/%d => dlid 0x%x QP%u qkey 0x%08x pkey_index %u",
			      __entry->dev_index, __entry->port_num,
			      __entry->qp_num, __entry->hi_tid, __entry->tid,
			      __entry->base_version, __entry->mgmt_class,
			      __entry->class_version, __entry->method,
			      __entry->status, __entry->attr_id,
			      __entry->attr_mod, __entry->length,
			      __entry->timeout_ms, __entry->retries_left,
			      __entry->retries, __entry->dlid,
			      __entry->remote_qpn, __entry->remote_qkey,
			      __entry->pkey_index)
);

/* A send goes on its QP. */
DEFINE_EVENT(ib_mad_send_template, ib_mad_ib_send_mad,
	     TP_PROTO(const struct ib_mad_send_wr_private *wr),
	     TP_ARGS(wr));

/* A send that waited for room on its QP goes on it. */
DEFINE_EVENT(ib_mad_send_template, ib_mad_send_done_resend,
	     TP_PROTO(const struct ib_mad_send_wr_private *wr),
	     TP_ARGS(wr));

/* The QP refused a send: it completes with an error. */
DEFINE_EVENT(ib_mad_send_template, ib_mad_error_handler,
	     TP_PROTO(const struct ib_mad_send_wr_private *wr),
	     TP_ARGS(wr));

/* The send completion of a MAD that went on the wire. */
TRACE_EVENT(ib_mad_send_done_handler,
	    TP_PROTO(const struct ib_mad_send_wr_private *wr,
		     const struct ib_wc *wc),
	    TP_ARGS(wr, wc),
	    TP_STRUCT__entry(__field(u32, dev_index)
			     __field(u32, port_num)
			     __field(u32, qp_num)
			     __field(u32, hi_tid)
			     __field(u64, tid)
			     __field(u8, mgmt_class)
			     __field(u8, method)
			     __field(u16, attr_id)
			     __field(int, retries_left)
			     __field(int, retries)
			     __field(u32, wc_status)),
	    TP_fast_assign(const struct ib_mad_hdr *hdr =
					(const struct ib_mad_hdr *)wr->mad;

			   __entry->dev_index =
				wr->mad_agent_priv->agent.device->index;
			   __entry->port_num = wr->mad_agent_priv->agent.port_num;
			   __entry->qp_num =
				wr->mad_agent_priv->qp_info->qp->qp_num;
			   __entry->hi_tid = wr->mad_agent_priv->agent.hi_tid;
			   __entry->tid = be64_to_cpu(hdr->tid);
			   __entry->mgmt_class = hdr->mgmt_class;
			   __entry->method = hdr->method;
			   __entry->attr_id = be16_to_cpu(hdr->attr_id);
			   __entry->retries_left = wr->retries_left;
			   __entry->retries = wr->send_buf.retries;
			   __entry->wc_status = wc->status;),
	    TP_printk("%u:%u QP%u agent 0x%x: send done, status %u: tid 0x%016llx class 0x%02x method 0x%02x attr_id 0x%04x retries %d/%d",
		      __entry->dev_index, __entry->port_num, __entry->qp_num,
		      __entry->hi_tid, __entry->wc_status, __entry->tid,
		      __entry->mgmt_class, __entry->method, __entry->attr_id,
		      __entry->retries_left, __entry->retries)
);

/* A MAD from the wire, before any check of it. */
TRACE_EVENT(ib_mad_recv_done_handler,
	    TP_PROTO(const struct ib_mad_qp_info *qp_info,
		     const struct ib_wc *wc, const struct ib_mad_hdr *hdr),
	    TP_ARGS(qp_info, wc, hdr),
	    TP_STRUCT__entry(__field(u32, dev_index)
			     __field(u32, port_num)
			     __field(u32, qp_num)
			     __field(u32, length)
			     __field(u64, tid)
			     __field(u8, base_version)
			     __field(u8, mgmt_class)
			     __field(u8, class_version)
			     __field(u8, method)
			     __field(u16, status)
			     __field(u16, attr_id)
			     __field(u32, attr_mod)
			     __field(u32, slid)
			     __field(u32, src_qp)
			     __field(u8, sl)
			     __field(u16, pkey_index)),
	    TP_fast_assign(__entry->dev_index = qp_info->port->device->index;
			   __entry->port_num = qp_info->port->port_num;
			   __entry->qp_num = qp_info->qp->qp_num;
			   __entry->length = wc->byte_len;
			   __entry->tid = be64_to_cpu(hdr->tid);
			   __entry->base_version = hdr->base_version;
			   __entry->mgmt_class = hdr->mgmt_class;
			   __entry->class_version = hdr->class_version;
			   __entry->method = hdr->method;
			   __entry->status = be16_to_cpu(hdr->status);
			   __entry->attr_id = be16_to_cpu(hdr->attr_id);
			   __entry->attr_mod = be32_to_cpu(hdr->attr_mod);
			   __entry->slid = wc->slid;
			   __entry->src_qp = wc->src_qp;
			   __entry->sl = wc->sl;
			   __entry->pkey_index = wc->pkey_index;),
	    TP_printk("%u:%u QP%u: received %u bytes: tid 0x%016llx base_ver 0x%x class 0x%02x class_ver 0x%x method 0x%02x status 0x%04x attr_id 0x%04x attr_mod 0x%08x <= slid 0x%x QP%u sl %u pkey_index %u",
		      __entry->dev_index, __entry->port_num, __entry->qp_num,
		      __entry->length, __entry->tid, __entry->base_version,
		      __entry->mgmt_class, __entry->class_version,
		      __entry->method, __entry->status, __entry->attr_id,
		      __entry->attr_mod, __entry->slid, __entry->src_qp,
		      __entry->sl, __entry->pkey_index)
);

/* An agent: its port, QP and the class it registered for (0 if none). */
DECLARE_EVENT_CLASS(ib_mad_agent_template,
		    TP_PROTO(const struct ib_mad_agent_private *priv),
		    TP_ARGS(priv),
		    TP_STRUCT__entry(__field(u32, dev_index)
				     __field(u32, port_num)
				     __field(u32, qp_num)
				     __field(u32, hi_tid)
				     __field(u8, mgmt_class)
				     __field(u8, class_version)),
		    TP_fast_assign(const struct ib_mad_reg_req *req =
						priv->reg_req;

				   __entry->dev_index = priv->agent.device->index;
				   __entry->port_num = priv->agent.port_num;
				   __entry->qp_num = priv->qp_info->qp->qp_num;
				   __entry->hi_tid = priv->agent.hi_tid;
				   __entry->mgmt_class =
						req ? req->mgmt_class : 0;
				   __entry->class_version =
						req ? req->mgmt_class_version : 0;),
		    TP_printk("%u:%u QP%u agent 0x%x: class 0x%02x class_ver 0x%x",
			      __entry->dev_index, __entry->port_num,
			      __entry->qp_num, __entry->hi_tid,
			      __entry->mgmt_class, __entry->class_version)
);

/* An agent is registered. */
DEFINE_EVENT(ib_mad_agent_template, ib_mad_create_agent,
	     TP_PROTO(const struct ib_mad_agent_private *priv),
	     TP_ARGS(priv));

/* An agent is being unregistered. */
DEFINE_EVENT(ib_mad_agent_template, ib_mad_unregister_agent,
	     TP_PROTO(const struct ib_mad_agent_private *priv),
	     TP_ARGS(priv));

/* An agent's receive handler is called. */
DEFINE_EVENT(ib_mad_agent_template, ib_mad_recv_done_agent,
	     TP_PROTO(const struct ib_mad_agent_private *priv),
	     TP_ARGS(priv));

/* An agent's send handler is called: a send of it ends. */
DEFINE_EVENT(ib_mad_agent_template, ib_mad_send_done_agent,
	     TP_PROTO(const struct ib_mad_agent_private *priv),
	     TP_ARGS(priv));

/* A directed-route SMP: its M_Key, route and hop pointer. */
DECLARE_EVENT_CLASS(ib_mad_ib_smi_template,
		    TP_PROTO(const struct ib_smp *smp),
		    TP_ARGS(smp),
		    TP_STRUCT__entry(__field(u64, mkey)
				     __field(u16, dr_slid)
				     __field(u16, dr_dlid)
				     __field(u8, hop_ptr)
				     __field(u8, hop_cnt)
				     __array(u8, initial_path,
					     IB_SMP_MAX_PATH_HOPS)
				     __array(u8, return_path,
					     IB_SMP_MAX_PATH_HOPS)),
		    TP_fast_assign(__entry->mkey = be64_to_cpu(smp->mkey);
				   __entry->dr_slid = be16_to_cpu(smp->dr_slid);
				   __entry->dr_dlid = be16_to_cpu(smp->dr_dlid);
				   __entry->hop_ptr = smp->hop_ptr;
				   __entry->hop_cnt = smp->hop_cnt;
				   memcpy(__entry->initial_path,
					  smp->initial_path,
					  IB_SMP_MAX_PATH_HOPS);
				   memcpy(__entry->return_path,
					  smp->return_path,
					  IB_SMP_MAX_PATH_HOPS);),
		    TP_printk("IB SMP: hop_ptr %u hop_cnt %u mkey 0x%016llx dr_slid 0x%04x dr_dlid 0x%04x initial_path %*ph return_path %*ph",
			      __entry->hop_ptr, __entry->hop_cnt,
			      __entry->mkey, __entry->dr_slid,
			      __entry->dr_dlid,
			      min_t(int, __entry->hop_cnt + 1,
				    IB_SMP_MAX_PATH_HOPS),
			      __entry->initial_path,
			      min_t(int, __entry->hop_cnt + 1,
				    IB_SMP_MAX_PATH_HOPS),
			      __entry->return_path)
);

/* A directed-route SMP from the wire, before the incoming rules. */
DEFINE_EVENT(ib_mad_ib_smi_template, ib_mad_handle_ib_smi,
	     TP_PROTO(const struct ib_smp *smp),
	     TP_ARGS(smp));

/* A directed-route SMP being sent, before the outgoing rules. */
DEFINE_EVENT(ib_mad_ib_smi_template, ib_mad_handle_out_ib_smi,
	     TP_PROTO(const struct ib_smp *smp),
	     TP_ARGS(smp));

#endif /* IB_CORE_MAD_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mad_trace
#include <trace/define_trace.h>
