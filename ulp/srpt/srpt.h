/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ib_srpt: the SCSI RDMA Protocol target, a fabric module of LIO.
 *
 * Objects and who owns them:
 *
 * struct srpt_device, one per ib_device the client was added to, holds the
 * PD, the IB CM listener and one struct srpt_port per port.  Its kref is
 * held by the client (until remove) and by every configfs WWN naming one
 * of its ports, so a WWN outlives the device's removal without pointing
 * at freed memory; @device is cleared under srpt_dev_lock at removal.
 *
 * struct srpt_port_id is a configfs WWN (target/srpt/<name>), struct
 * srpt_tpg a TPG under it.  A port has at most one WWN in the GUID form
 * and one in the GID form.
 *
 * struct srpt_rdma_ch is one RC connection (an SRP channel): its QP and
 * CQ, its receive and send I/O contexts and its LIO session.  It sits on
 * its port's ch_list from login until the release work has torn it down
 * and freed it; it holds a reference to its device until then.
 *
 * Locking, outermost first: srpt_port.mutex (enabled, removed, ch_list,
 * the WWN slots, the DM agent; held through a whole login),
 * srpt_port_id.mutex (its TPG list), srpt_rdma_ch.cm_mutex (the CM
 * identifiers against destruction), srpt_dev_lock (spinlock: the device
 * list, each device's @device, the ports' names), srpt_rdma_ch.lock
 * (spinlock: the channel state, credits and the wait list).
 */
#ifndef SRPT_H
#define SRPT_H

#include <linux/bits.h>
#include <linux/kref.h>
#include <asm/unaligned.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <scsi/srp.h>
#include <target/target_core_base.h>

#define SRPT_ID_STRING		"Linux SRP target"
#define SRPT_SERVICE_NAME_PREFIX "SRP.T10:"

/* Limits of the module parameters and configfs attributes. */
#define SRPT_MIN_MAX_REQ_SIZE	996
/* Upstream's default: 80 bytes of header and 8 KiB of immediate data. */
#define SRPT_DEF_MAX_REQ_SIZE	8276
#define SRPT_MAX_REQ_SIZE	65536
#define SRPT_MIN_MAX_RSP_SIZE	(sizeof(struct srp_rsp) + 4)
#define SRPT_DEF_MAX_RSP_SIZE	256
#define SRPT_MAX_RSP_SIZE	1024
#define SRPT_MIN_SRQ_SIZE	4
#define SRPT_DEF_SRQ_SIZE	4095
#define SRPT_MAX_SRQ_SIZE	65535
#define SRPT_MIN_SQ_SIZE	16
#define SRPT_DEF_SQ_SIZE	4096
#define SRPT_MAX_RQ_SIZE	128
#define SRPT_DEF_MAX_RDMA_SIZE	65536
#define SRPT_MAX_RDMA_SIZE	BIT(24)
#define SRPT_RDMA_READ_DEPTH	4
/* Largest data buffer of one command. */
#define SRPT_MAX_DATA_LEN	BIT(24)

/* SRP values <scsi/srp.h> lacks (SRP r16a, tables B.7 and 10). */
#define SRPT_IO_SUBCLASS	0x609e
#define SRPT_PROTOCOL		0x0108
#define SRPT_PROTOCOL_VERSION	0x0001
#define SRPT_SEND_TO_IOC	0x01
#define SRPT_SEND_FROM_IOC	0x02
#define SRPT_RDMA_READ_FROM_IOC	0x08
#define SRPT_RDMA_WRITE_FROM_IOC 0x20
#define SRPT_CMD_SIMPLE_Q	0x0
#define SRPT_CMD_HEAD_OF_Q	0x1
#define SRPT_CMD_ORDERED_Q	0x2
#define SRPT_CMD_ACA		0x4
#define SRPT_TSK_MGMT_SUCCESS		0x00
#define SRPT_TSK_MGMT_FUNC_NOT_SUPP	0x04
#define SRPT_TSK_MGMT_FAILED		0x05

/* Device management class: attributes and status codes. */
#define SRPT_DM_ATTR_CLASS_PORT_INFO	0x0001
#define SRPT_DM_ATTR_IOU_INFO		0x0010
#define SRPT_DM_ATTR_IOC_PROFILE	0x0011
#define SRPT_DM_ATTR_SVC_ENTRIES	0x0012
#define SRPT_DM_STATUS_UNSUP_METHOD	0x0008
#define SRPT_DM_STATUS_UNSUP_ATTR	0x000c
#define SRPT_DM_STATUS_INVALID_FIELD	0x001c
#define SRPT_DM_STATUS_NO_IOC		0x0100

/**
 * struct srpt_dm_mad - a device management MAD
 * @hdr: the common MAD header
 * @reserved: up to byte 64
 * @data: the attribute
 */
struct srpt_dm_mad {
	struct ib_mad_hdr hdr;
	u8 reserved[40];
	u8 data[IB_MGMT_DEVICE_DATA];
};

/**
 * struct srpt_iou_info - IOUnitInfo
 * @change_id: bumped when the I/O unit changes
 * @max_controllers: slots
 * @flags: option ROM and diagnostics bits
 * @controller_list: four bits a slot, slot 1 in the high half of byte 0
 */
struct srpt_iou_info {
	__be16 change_id;
	u8 max_controllers;
	u8 flags;
	u8 controller_list[128];
};

/**
 * struct srpt_ioc_profile - IOControllerProfile
 * @guid: the controller's GUID (the service GUID)
 * @vendor_id: vendor ID, 24 bits
 * @device_id: device ID
 * @device_version: device version
 * @reserved1: reserved
 * @subsys_vendor_id: subsystem vendor ID, 24 bits
 * @subsys_device_id: subsystem ID
 * @io_class: I/O class (SRP revision)
 * @io_subclass: I/O subclass
 * @protocol: protocol
 * @protocol_version: protocol version
 * @service_conn: service connections
 * @initiators_supported: initiators supported
 * @send_queue_depth: send message queue depth
 * @reserved2: reserved
 * @rdma_read_depth: RDMA read queue depth
 * @send_size: largest message the controller receives
 * @rdma_size: largest RDMA transfer
 * @op_cap_mask: controller operations capability mask
 * @svc_cap_mask: service capability mask
 * @num_svc_entries: service entries
 * @reserved3: reserved
 * @id_string: printable name
 */
struct srpt_ioc_profile {
	__be64 guid;
	__be32 vendor_id;
	__be32 device_id;
	__be16 device_version;
	__be16 reserved1;
	__be32 subsys_vendor_id;
	__be32 subsys_device_id;
	__be16 io_class;
	__be16 io_subclass;
	__be16 protocol;
	__be16 protocol_version;
	__be16 service_conn;
	__be16 initiators_supported;
	__be16 send_queue_depth;
	u8 reserved2;
	u8 rdma_read_depth;
	__be32 send_size;
	__be32 rdma_size;
	u8 op_cap_mask;
	u8 svc_cap_mask;
	u8 num_svc_entries;
	u8 reserved3[9];
	u8 id_string[64];
};

/**
 * struct srpt_svc_entry - one ServiceEntry
 * @name: the service name
 * @id: the service ID
 */
struct srpt_svc_entry {
	u8 name[40];
	__be64 id;
};

/**
 * struct srpt_port_attrib - the attributes of a port's TPGs
 * @srp_max_rdma_size: largest RDMA transfer advertised
 * @srp_max_rsp_size: largest SRP_RSP sent (sense data is cut to fit)
 * @srp_sq_size: send queue entries of a channel
 * @use_srq: the device's channels share its SRQ (chosen at module load)
 */
struct srpt_port_attrib {
	u32 srp_max_rdma_size;
	u32 srp_max_rsp_size;
	u32 srp_sq_size;
	bool use_srq;
};

/**
 * struct srpt_port_id - a configfs WWN naming a port
 * @mutex: protects @tpg_list
 * @tpg_list: its struct srpt_tpg
 * @wwn: LIO's part; wwn.priv is the struct srpt_port
 * @name: the directory name
 */
struct srpt_port_id {
	struct mutex mutex;		/* tpg_list */
	struct list_head tpg_list;
	struct se_wwn wwn;
	char name[64];
};

/**
 * struct srpt_tpg - a TPG (target/srpt/<wwn>/tpgt_N)
 * @entry: in the WWN's tpg_list
 * @port_id: the WWN
 * @tpg: LIO's part
 */
struct srpt_tpg {
	struct list_head entry;
	struct srpt_port_id *port_id;
	struct se_portal_group tpg;
};

/**
 * struct srpt_port - one port of a device
 * @sdev: its device
 * @port: its number
 * @mad_agent: the device management agent, or NULL
 * @dm_cap_set: IB_PORT_DEVICE_MGMT_SUP set by us
 * @gid: GID index 0, read at add and on port events
 * @guid_name: the WWN name in the GUID form, xxxx:xxxx:xxxx:xxxx
 * @gid_name: the WWN name in the GID form, 0x and 32 hex digits
 * @guid_id: the WWN in the GUID form, if created
 * @gid_id: the WWN in the GID form, if created
 * @port_attrib: the TPG attributes
 * @refresh_work: re-reads @gid and re-registers DM after port events
 * @mutex: protects @enabled, @removed, @ch_list and the DM agent
 * @enabled: a TPG of the port is enabled: logins are accepted
 * @removed: the device is going away: no more logins
 * @ch_list: the port's channels
 * @ch_wq: woken when a channel leaves @ch_list
 */
struct srpt_port {
	struct srpt_device *sdev;
	u32 port;
	struct ib_mad_agent *mad_agent;
	bool dm_cap_set;
	union ib_gid gid;
	char guid_name[24];
	char gid_name[40];
	struct srpt_port_id *guid_id;
	struct srpt_port_id *gid_id;
	struct srpt_port_attrib port_attrib;
	struct work_struct refresh_work;
	struct mutex mutex;		/* see above */
	bool enabled;
	bool removed;
	struct list_head ch_list;
	wait_queue_head_t ch_wq;
};

/**
 * struct srpt_device - the target's state on one ib_device
 * @refcnt: the client's reference and one per WWN
 * @device: the ib_device; NULL once removed (srpt_dev_lock)
 * @pd: protection domain of every channel
 * @cm_id: IB CM listener on the service ID
 * @srq: the shared receive queue of every channel, with use_srq=1
 * @srq_size: its receive buffers
 * @srq_ring: the buffers
 * @event_handler: port events
 * @list: in srpt_dev_list
 * @port_cnt: ports in @port
 * @port: the ports, port N at index N - 1
 */
struct srpt_device {
	struct kref refcnt;
	struct ib_device *device;
	struct ib_pd *pd;
	struct ib_cm_id *cm_id;
	struct ib_srq *srq;
	u32 srq_size;
	struct srpt_recv_ioctx **srq_ring;
	struct ib_event_handler event_handler;
	struct list_head list;
	u32 port_cnt;
	struct srpt_port port[];
};

/**
 * enum srpt_ch_state - the life of a channel
 * @CH_CONNECTING: login accepted, waiting for RTU (or the first IU)
 * @CH_LIVE: IUs are processed
 * @CH_DISCONNECTING: DREQ sent or received
 * @CH_DRAINING: the release work runs
 * @CH_DISCONNECTED: torn down
 */
enum srpt_ch_state {
	CH_CONNECTING,
	CH_LIVE,
	CH_DISCONNECTING,
	CH_DRAINING,
	CH_DISCONNECTED,
};

/**
 * enum srpt_cmd_state - the life of a send I/O context
 * @SRPT_STATE_NEW: parsed, given to LIO
 * @SRPT_STATE_NEED_DATA: RDMA READs of data-out posted
 * @SRPT_STATE_DATA_IN: data-out arrived (or none needed)
 * @SRPT_STATE_CMD_RSP_SENT: SRP_RSP posted
 * @SRPT_STATE_MGMT: a task management request in LIO
 * @SRPT_STATE_MGMT_RSP_SENT: its SRP_RSP posted
 * @SRPT_STATE_DONE: finished
 */
enum srpt_cmd_state {
	SRPT_STATE_NEW,
	SRPT_STATE_NEED_DATA,
	SRPT_STATE_DATA_IN,
	SRPT_STATE_CMD_RSP_SENT,
	SRPT_STATE_MGMT,
	SRPT_STATE_MGMT_RSP_SENT,
	SRPT_STATE_DONE,
};

/**
 * struct srpt_recv_ioctx - a receive buffer of a channel
 * @cqe: its completion
 * @buf: srp_max_req_size bytes
 * @dma: @buf's DMA address
 * @byte_len: the length of the IU received
 * @wait_list: on the channel's wait list while no send context is free
 */
struct srpt_recv_ioctx {
	struct ib_cqe cqe;
	void *buf;
	dma_addr_t dma;
	u32 byte_len;
	struct list_head wait_list;
};

/**
 * struct srpt_rw_ctx - RDMA of one remote buffer
 * @rw: the core's context
 * @sg: the local pages for it
 * @nents: entries of @sg
 */
struct srpt_rw_ctx {
	struct rdma_rw_ctx rw;
	struct scatterlist *sg;
	unsigned int nents;
};

/**
 * struct srpt_send_ioctx - a command and its response buffer
 * @cqe: completion of the SRP_RSP send
 * @rdma_cqe: completion of the last RDMA READ
 * @buf: the response, max_rsp_size bytes
 * @dma: @buf's DMA address
 * @ch: its channel
 * @cmd: LIO's command
 * @state: enum srpt_cmd_state
 * @n_rdma: send queue entries its RDMA uses
 * @rw_ctxs: one context per remote buffer
 * @s_rw_ctx: @rw_ctxs when there is one buffer
 * @n_rw_ctx: entries of @rw_ctxs
 * @sgl: the data buffer given to LIO
 * @sgl_cnt: entries of @sgl
 * @sgl_own: @sgl was allocated for several remote buffers
 * @rdma_len: bytes of the remote buffers, which the RDMA requests move
 * @queue_status_only: send the status without the data-in
 * @sense: sense buffer
 */
struct srpt_send_ioctx {
	struct ib_cqe cqe;
	struct ib_cqe rdma_cqe;
	void *buf;
	dma_addr_t dma;
	struct srpt_rdma_ch *ch;
	struct se_cmd cmd;
	enum srpt_cmd_state state;
	u32 n_rdma;
	struct srpt_rw_ctx *rw_ctxs;
	struct srpt_rw_ctx s_rw_ctx;
	u32 n_rw_ctx;
	struct scatterlist *sgl;
	u32 sgl_cnt;
	bool sgl_own;
	u32 rdma_len;
	bool queue_status_only;
	u8 sense[TRANSPORT_SENSE_BUFFER];
};

/**
 * struct srpt_rdma_ch - an SRP channel
 * @sport: its port
 * @using_rdma_cm: logged in through the RDMA CM
 * @cm_mutex: protects the CM identifiers against their destruction while
 *	a DREQ is sent from outside the CM's handlers
 * @ib_cm_id: IB CM identifier (IB CM logins)
 * @rdma_cm_id: RDMA CM identifier (RDMA CM logins)
 * @srq: the device's SRQ, or NULL: receive buffers of the channel's own
 * @cq: send and receive completions
 * @qp: the RC QP
 * @sq_wr_avail: send queue entries free
 * @sq_size: send queue entries
 * @rq_size: receive buffers, also the initial credits
 * @max_rsp_size: size of a response buffer
 * @max_ti_iu_len: largest IU the initiator receives
 * @lock: protects @state, @req_lim_delta and @cmd_wait_list
 * @state: enum srpt_ch_state
 * @req_lim_delta: credits to return in the next response
 * @cmd_wait_list: receive contexts waiting for a send context
 * @ioctx_ring: the send contexts, @rq_size of them
 * @ioctx_recv_ring: the receive contexts, @rq_size of them (none with @srq)
 * @list: in the port's ch_list
 * @sess: LIO session
 * @i_port_id: initiator port identifier of the login
 * @t_port_id: target port identifier of the login
 * @sess_name: the name LIO knows the initiator by
 * @release_work: tears the channel down
 * @dropped: IUs dropped or refused as malformed
 */
struct srpt_rdma_ch {
	struct srpt_port *sport;
	bool using_rdma_cm;
	struct mutex cm_mutex;		/* ib_cm_id, rdma_cm_id */
	struct ib_cm_id *ib_cm_id;
	struct rdma_cm_id *rdma_cm_id;
	struct ib_srq *srq;
	struct ib_cq *cq;
	struct ib_qp *qp;
	atomic_t sq_wr_avail;
	u32 sq_size;
	u32 rq_size;
	u32 max_rsp_size;
	u32 max_ti_iu_len;
	spinlock_t lock;		/* state, credits, wait list */
	enum srpt_ch_state state;
	u32 req_lim_delta;
	struct list_head cmd_wait_list;
	struct srpt_send_ioctx **ioctx_ring;
	struct srpt_recv_ioctx **ioctx_recv_ring;
	struct list_head list;
	struct se_session *sess;
	u8 i_port_id[16];
	u8 t_port_id[16];
	char sess_name[40];
	struct work_struct release_work;
	atomic_t dropped;
};

/* srpt_main.c */
extern u64 srpt_service_guid;
extern unsigned int srp_max_req_size;
extern struct ib_client srpt_client;
extern spinlock_t srpt_dev_lock;
void srpt_sdev_put(struct srpt_device *sdev);
struct srpt_device *srpt_get_sdev(struct ib_device *device);
struct srpt_port *srpt_lookup_port(const char *name,
				   struct srpt_port_id ***slot);
int srpt_rdma_cm_set_port(u16 port);
u16 srpt_rdma_cm_get_port(void);

/* srpt_dm.c */
int srpt_dm_register(struct srpt_port *sport);
void srpt_dm_unregister(struct srpt_port *sport);

/* srpt_cm.c */
int srpt_ib_cm_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev);
int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
			 struct rdma_cm_event *event);
void srpt_close_ch(struct srpt_rdma_ch *ch);
void srpt_disconnect_ch(struct srpt_rdma_ch *ch);
void srpt_close_session(struct se_session *se_sess);
void srpt_close_all_ch(struct srpt_port *sport);
void srpt_set_enabled(struct srpt_port *sport, bool enabled);
bool srpt_set_ch_state(struct srpt_rdma_ch *ch, enum srpt_ch_state new);

/* srpt_io.c */
int srpt_alloc_srq(struct srpt_device *sdev, u32 size);
void srpt_free_srq(struct srpt_device *sdev);
void srpt_release_wait_list(struct srpt_rdma_ch *ch);
int srpt_alloc_ch_ioctxs(struct srpt_rdma_ch *ch, u32 max_req);
void srpt_free_ch_ioctxs(struct srpt_rdma_ch *ch);
int srpt_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv_ioctx *ioctx);
void srpt_process_wait_list(struct srpt_rdma_ch *ch);
void srpt_release_cmd(struct se_cmd *se_cmd);
int srpt_check_stop_free(struct se_cmd *se_cmd);
int srpt_write_pending(struct se_cmd *se_cmd);
int srpt_queue_data_in(struct se_cmd *se_cmd);
int srpt_queue_status(struct se_cmd *se_cmd);
void srpt_queue_tm_rsp(struct se_cmd *se_cmd);
void srpt_aborted_task(struct se_cmd *se_cmd);
int srpt_get_tcm_cmd_state(struct se_cmd *se_cmd);

/* srpt_configfs.c */
extern const struct target_core_fabric_ops srpt_template;

#endif /* SRPT_H */
