/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * Provider ABI of the soft-RoCE driver family (RDMA_DRIVER_RXE), the one
 * rdma-core's librxe speaks.
 *
 * Work queues and completion queues live in kernel memory that user space
 * maps: each is a struct rxe_queue_buf followed by its ring of elements
 * (struct rxe_send_wqe, struct rxe_recv_wqe or struct ib_uverbs_wc).  The
 * create and resize responses below say where to mmap() each ring.
 * Posting to a receive queue and polling a CQ never enter the kernel; new
 * sends are announced with a POST_SEND command that carries no requests.
 *
 * Everything here is ABI and equal to Linux 6.1 (the ring element layouts
 * included); layouts are the same for 32-bit and 64-bit callers.
 */
#ifndef RDMA_USER_RXE_H
#define RDMA_USER_RXE_H

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/socket.h>
#include <linux/in.h>
#include <linux/in6.h>

/* rxe_av.network_type */
enum {
	RXE_NETWORK_TYPE_IPV4 = 1,
	RXE_NETWORK_TYPE_IPV6 = 2,
};

union rxe_gid {
	__u8	raw[16];
	struct {
		__be64	subnet_prefix;
		__be64	interface_id;
	} global;
};

struct rxe_global_route {
	union rxe_gid	dgid;
	__u32		flow_label;
	__u8		sgid_index;
	__u8		hop_limit;
	__u8		traffic_class;
};

/* Address vector of a UD send, resolved to IP addresses and a MAC */
struct rxe_av {
	__u8			port_num;
	__u8			network_type;	/* RXE_NETWORK_TYPE_* */
	__u8			dmac[6];
	struct rxe_global_route	grh;
	union {
		struct sockaddr_in	_sockaddr_in;
		struct sockaddr_in6	_sockaddr_in6;
	} sgid_addr, dgid_addr;
};

/* A send work request as it sits in the send ring */
struct rxe_send_wr {
	__aligned_u64		wr_id;
	__u32			reserved;
	__u32			opcode;		/* enum ib_uverbs_wr_opcode */
	__u32			send_flags;
	union {
		__be32		imm_data;
		__u32		invalidate_rkey;
	} ex;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32	rkey;
			__u32	reserved;
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32	rkey;
			__u32	reserved;
		} atomic;
		struct {
			__u32	remote_qpn;
			__u32	remote_qkey;
			__u16	pkey_index;
			__u16	reserved;
			__u32	ah_num;		/* 0: use av below */
			__u32	pad[4];
			struct rxe_av av;
		} ud;
		struct {
			__aligned_u64	addr;
			__aligned_u64	length;
			__u32		mr_lkey;
			__u32		mw_rkey;
			__u32		rkey;
			__u32		access;
		} mw;
#ifdef __KERNEL__
		/*
		 * Fast registration, posted by kernel users only; it fits in
		 * the room of ud and so changes no user-visible layout.
		 */
		struct {
			union {
				struct ib_mr *mr;
				__aligned_u64 reserved;
			};
			__u32	     key;
			__u32	     access;
		} reg;
#endif
	} wr;
};

struct rxe_sge {
	__aligned_u64 addr;
	__u32	length;
	__u32	lkey;
};

/* Where to mmap() a ring: pass offset as the mmap offset, map size bytes */
struct mminfo {
	__aligned_u64		offset;
	__u32			size;
	__u32			pad;
};

/*
 * The data of a work request: a scatter/gather list, or inline data copied
 * into the ring, plus the progress through it.
 */
struct rxe_dma_info {
	__u32			length;		/* total bytes */
	__u32			resid;		/* bytes not yet transferred */
	__u32			cur_sge;
	__u32			num_sge;
	__u32			sge_offset;	/* into sge[cur_sge] */
	__u32			reserved;
	union {
		__DECLARE_FLEX_ARRAY(__u8, inline_data);
		__DECLARE_FLEX_ARRAY(struct rxe_sge, sge);
	};
};

/* Element of a send ring: the request and the requester's state for it */
struct rxe_send_wqe {
	struct rxe_send_wr	wr;
	__u32			status;
	__u32			state;
	__aligned_u64		iova;
	__u32			mask;
	__u32			first_psn;
	__u32			last_psn;
	__u32			ack_length;
	__u32			ssn;
	__u32			has_rd_atomic;
	struct rxe_dma_info	dma;
};

/* Element of a receive or shared receive ring */
struct rxe_recv_wqe {
	__aligned_u64		wr_id;
	__u32			reserved;
	__u32			padding;
	struct rxe_dma_info	dma;
};

/* Driver parts of command responses */

/* CREATE_AH: the kernel's number for the new AH, for ud.ah_num */
struct rxe_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

struct rxe_create_cq_resp {
	struct mminfo mi;
};

struct rxe_resize_cq_resp {
	struct mminfo mi;
};

struct rxe_create_qp_resp {
	struct mminfo rq_mi;
	struct mminfo sq_mi;
};

struct rxe_create_srq_resp {
	struct mminfo mi;
	__u32 srq_num;
	__u32 reserved;
};

/* Driver part of MODIFY_SRQ: user address that receives a new mminfo */
struct rxe_modify_srq_cmd {
	__aligned_u64 mmap_info_addr;
};

/*
 * Head of every mapped ring.  The producer and consumer indices sit 128
 * bytes apart so that the two sides do not share a cache line.  The sizes
 * here are for user space; the kernel keeps its own copy and masks every
 * index before use, whatever user space writes.
 */
struct rxe_queue_buf {
	__u32			log2_elem_size;
	__u32			index_mask;
	__u32			pad_1[30];
	__u32			producer_index;
	__u32			pad_2[31];
	__u32			consumer_index;
	__u32			pad_3[31];
	__u8			data[];		/* the elements */
};

#endif /* RDMA_USER_RXE_H */
