package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.AsyncEventType;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.DeviceCap;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.PortAttr;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.QpAttr;
import io.github.verbs4j.verbs.QpAttrMask;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpState;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.RecvWr;
import io.github.verbs4j.verbs.SendFlag;
import io.github.verbs4j.verbs.SendWr;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.WrOpcode;
import io.github.verbs4j.verbs.config.VerbsConfig;
import java.util.EnumSet;
import java.util.Set;

/**
 * The shared base of every provider's queue pair. It owns what libibverbs semantics fix for all
 * devices, once: the state machine ({@link QpStateTable}) and attribute value checks, post-time
 * validation of WR chains with the {@code bad_wr} index, the receive queue, SRQ/CQ attachment,
 * LAST_WQE_REACHED for SRQ QPs entering ERR, and lifecycle. A provider implements the device
 * behaviour behind five hooks: {@link #applyModify}, {@link #sendQueueFull}, {@link #enqueueSend},
 * {@link #recvPosted} and {@link #destroy}.
 *
 * <p>Locking: modify, error transitions and query take the QP's monitor; posting does not (one
 * posting thread per queue, as in libibverbs).
 */
public abstract class AbstractQueuePair implements QueuePair {
  private static final Set<WrOpcode> UD_OPS = EnumSet.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM);
  private static final Set<WrOpcode> UC_OPS = EnumSet.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
      WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.LOCAL_INV, WrOpcode.BIND_MW, WrOpcode.SEND_WITH_INV);
  private static final Set<WrOpcode> RC_OPS = EnumSet.complementOf(EnumSet.of(WrOpcode.TSO));
  /** Opcodes every verbs4j provider implements; others fail with EOPNOTSUPP unless a provider adds them. */
  public static final Set<WrOpcode> CORE_OPS = EnumSet.of(WrOpcode.SEND, WrOpcode.SEND_WITH_IMM, WrOpcode.RDMA_WRITE,
      WrOpcode.RDMA_WRITE_WITH_IMM, WrOpcode.RDMA_READ, WrOpcode.ATOMIC_CMP_AND_SWP, WrOpcode.ATOMIC_FETCH_AND_ADD);
  private static final int MAX_MESSAGE = Integer.MAX_VALUE;
  /** A Q_Key with this bit set is privileged (IBTA 10.2.5; the kernel's IB_QP_SET_QKEY). */
  private static final int PRIVILEGED_QKEY_BIT = 0x80000000;
  /** IBV_ACCESS_OPTIONAL_RANGE of verbs.h: bits 20-29, which a device may ignore instead of failing. */
  private static final int OPTIONAL_ACCESS_RANGE = 0x3FF00000;
  /**
   * The qp_access_flags a QP may carry: rxe's RXE_ACCESS_SUPPORTED_QP (the remote and local
   * rights, MW_BIND, ON_DEMAND, FLUSH_GLOBAL, FLUSH_PERSISTENT and the optional range). Rights
   * verbs4j has no operation for (FLUSH, memory windows) are kept and returned by query() but
   * grant nothing.
   */
  private static final int QP_ACCESS = Access.LOCAL_WRITE.value() | Access.REMOTE_WRITE.value()
      | Access.REMOTE_READ.value() | Access.REMOTE_ATOMIC.value() | Access.MW_BIND.value() | Access.ON_DEMAND.value()
      | Access.FLUSH_GLOBAL.value() | Access.FLUSH_PERSISTENT.value() | OPTIONAL_ACCESS_RANGE;

  /** The PD. */
  protected final AbstractProtectionDomain pd;
  /** Creation attributes. */
  protected final QpInitAttr init;
  /** Actual capacities. */
  protected final QpCap cap;
  /** The QP number. */
  protected final int qpNum;
  /** Send CQ (null for DCT). */
  protected final SoftCompletionQueue sendCq;
  /** Receive CQ (null for DCI). */
  protected final SoftCompletionQueue recvCq;
  /** The SRQ, or null. */
  protected final SoftSharedReceiveQueue srq;
  /** The receive queue (null with an SRQ or for DCI/DCT). */
  protected final ReceiveQueue rq;
  /** Current attributes; guarded by this. */
  private final QpAttr attrs = new QpAttr();
  private volatile QpState state = QpState.RESET;
  private volatile boolean closed;
  private final String desc;
  private final String rqDesc;

  /**
   * @param pd the PD
   * @param init validated creation attributes
   * @param qpNum the QP number (24 bits)
   * @param cap the actual capacities (at least those requested)
   */
  protected AbstractQueuePair(AbstractProtectionDomain pd, QpInitAttr init, int qpNum, QpCap cap) {
    this.pd = pd;
    this.init = init;
    this.qpNum = qpNum & 0xFFFFFF;
    this.cap = cap;
    this.sendCq = (SoftCompletionQueue) init.sendCq();
    this.recvCq = (SoftCompletionQueue) init.recvCq();
    this.srq = (SoftSharedReceiveQueue) init.srq();
    QpType t = init.qpType();
    this.rq = srq == null && t != QpType.DCI && t != QpType.DCT ? new ReceiveQueue(cap.maxRecvWr(), cap.maxRecvSge())
        : null;
    this.desc = t + " QP 0x" + Integer.toHexString(this.qpNum);
    this.rqDesc = "RQ of " + desc;
    attrs.qpState(QpState.RESET).portNum(1).pkeyIndex(0).cap(cap);
  }

  void attachUsers() {
    if (sendCq != null) {
      sendCq.users.add(this, desc);
    }
    if (recvCq != null && recvCq != sendCq) {
      recvCq.users.add(this, desc);
    }
    if (srq != null) {
      srq.qps.add(this, desc);
    }
  }

  /** @return e.g. {@code RC QP 0x12}, for messages */
  public String describe() {
    return desc;
  }

  @Override
  public int qpNum() {
    return qpNum;
  }

  @Override
  public QpType type() {
    return init.qpType();
  }

  @Override
  public QpState state() {
    return state;
  }

  /** @return whether the QP was destroyed */
  public boolean isClosed() {
    return closed;
  }

  private void ensureOpen() {
    if (closed) {
      throw new VerbsException(Errno.EBADF, desc + " is closed");
    }
  }

  /**
   * The QP lock: {@code modify}, {@code query}, error transitions and {@code close} hold it, and a
   * provider's engine holds it while it works on the QP, so a transition never interleaves with
   * protocol processing. The QP object's own monitor by default; a provider whose engine must not
   * lock an object the application holds returns a private object (a final field: never called
   * from a constructor).
   *
   * @return the lock object, the same on every call
   */
  protected Object qpLock() {
    return this;
  }

  @Override
  public final void modify(QpAttr attr) {
    ensureOpen();
    synchronized (qpLock()) {
      QpState from = state;
      QpState next = QpStateTable.check(type(), from, attr, desc);
      checkValues(attr);
      int bits = attr.mask() & ~QpAttrMask.CUR_STATE.value() & ~QpAttrMask.STATE.value();
      QpAttr merged = attrs.copy().merge(attr, bits);
      merged.qpState(next);
      applyModify(from, next, merged, attr);
      attrs.merge(merged, merged.mask());
      state = next;
      if (next == QpState.ERR && from != QpState.ERR && srq != null) {
        pd.context.raiseAsyncEvent(AsyncEvent.ofQp(AsyncEventType.QP_LAST_WQE_REACHED, this));
      }
    }
  }

  private void checkValues(QpAttr a) {
    DeviceAttr dev = pd.context.queryDevice();
    if (a.has(QpAttrMask.PORT)) {
      AbstractProtectionDomain.checkRange("port_num", a.portNum(), 1, dev.physPortCnt(), "phys_port_cnt");
    }
    if (a.has(QpAttrMask.PKEY_INDEX)) {
      AbstractProtectionDomain.checkRange("pkey_index", a.pkeyIndex(), 0, dev.maxPkeys() - 1, "max_pkeys-1");
    }
    if (a.has(QpAttrMask.QKEY) && (a.qkey() & PRIVILEGED_QKEY_BIT) != 0
        && !pd.context.config().getBoolean(VerbsConfig.PRIVILEGED)) {
      // the kernel's modify_qp: a Q_Key with the MSB set needs CAP_NET_RAW (or privileged-qkey on)
      throw new VerbsException(Errno.EPERM, "qkey=0x" + Integer.toHexString(a.qkey())
          + " is a privileged Q_Key (most significant bit set); this process is not privileged ("
          + VerbsConfig.PRIVILEGED.name() + "=false)");
    }
    if (a.has(QpAttrMask.PATH_MTU)) {
      PortAttr port = pd.context.queryPort(a.has(QpAttrMask.PORT) ? a.portNum() : attrs.portNum());
      if (a.pathMtu().bytes() > port.maxMtu().bytes()) {
        throw VerbsException.invalid("path_mtu=" + a.pathMtu().bytes() + " exceeds the port's max_mtu="
            + port.maxMtu().bytes());
      }
    }
    if (a.has(QpAttrMask.TIMEOUT)) {
      AbstractProtectionDomain.checkRange("timeout", a.timeout(), 0, 31, "31");
    }
    if (a.has(QpAttrMask.RETRY_CNT)) {
      AbstractProtectionDomain.checkRange("retry_cnt", a.retryCnt(), 0, 7, "7");
    }
    if (a.has(QpAttrMask.RNR_RETRY)) {
      AbstractProtectionDomain.checkRange("rnr_retry", a.rnrRetry(), 0, 7, "7");
    }
    if (a.has(QpAttrMask.MIN_RNR_TIMER)) {
      AbstractProtectionDomain.checkRange("min_rnr_timer", a.minRnrTimer(), 0, 31, "31");
    }
    if (a.has(QpAttrMask.MAX_QP_RD_ATOMIC)) {
      AbstractProtectionDomain.checkRange("max_rd_atomic", a.maxRdAtomic(), 0, dev.maxQpInitRdAtom(),
          "max_qp_init_rd_atom");
    }
    if (a.has(QpAttrMask.MAX_DEST_RD_ATOMIC)) {
      AbstractProtectionDomain.checkRange("max_dest_rd_atomic", a.maxDestRdAtomic(), 0, dev.maxQpRdAtom(),
          "max_qp_rd_atom");
    }
    if (a.has(QpAttrMask.RQ_PSN)) {
      AbstractProtectionDomain.checkRange("rq_psn", a.rqPsn(), 0, 0xFFFFFF, "0xffffff");
    }
    if (a.has(QpAttrMask.SQ_PSN)) {
      AbstractProtectionDomain.checkRange("sq_psn", a.sqPsn(), 0, 0xFFFFFF, "0xffffff");
    }
    if (a.has(QpAttrMask.DEST_QPN)) {
      AbstractProtectionDomain.checkRange("dest_qp_num", a.destQpNum(), 0, 0xFFFFFF, "0xffffff");
    }
    if (a.has(QpAttrMask.AV)) {
      if (a.ahAttr() == null) {
        throw VerbsException.invalid("ah_attr is null");
      }
      AbstractProtectionDomain.checkAh("ah_attr.", a.ahAttr(), pd.context);
    }
    if (a.has(QpAttrMask.CAP) && !dev.has(DeviceCap.RESIZE_MAX_WR)) {
      throw VerbsException.invalid("cap: resizing a QP needs IBV_DEVICE_RESIZE_MAX_WR, which this device lacks");
    }
    if (a.has(QpAttrMask.ALT_PATH) && !dev.has(DeviceCap.AUTO_PATH_MIG)) {
      throw VerbsException.invalid("alt_path: needs IBV_DEVICE_AUTO_PATH_MIG, which this device lacks");
    }
    if (a.has(QpAttrMask.ACCESS_FLAGS)) {
      int unknown = a.qpAccessFlags() & ~QP_ACCESS;
      if (unknown != 0) {
        throw VerbsException.invalid("qp_access_flags=0x" + Integer.toHexString(a.qpAccessFlags())
            + " has bits a QP cannot carry: 0x" + Integer.toHexString(unknown));
      }
    }
  }

  /**
   * Provider: performs a validated transition. Called under the QP's monitor before the new state
   * and attributes are published; throwing a {@link VerbsException} aborts the modify with nothing
   * changed, so validate before acting. On {@code next == ERR} flush both queues in order; on
   * {@code RESET} drop every WQE without completions (and {@link SoftCompletionQueue#purge} this
   * QP's unpolled completions); on SQD stop starting new WRs.
   *
   * @param from the current state
   * @param next the next state
   * @param merged every attribute after the modify
   * @param requested the attributes given to modify (their mask)
   */
  protected abstract void applyModify(QpState from, QpState next, QpAttr merged, QpAttr requested);

  /**
   * Provider: moves the QP to ERR because of a data-path error (under the monitor). Raises
   * QP_LAST_WQE_REACHED for an SRQ QP. Does nothing if already in ERR or RESET.
   *
   * @return true if the state changed
   */
  protected final boolean enterError() {
    synchronized (qpLock()) {
      QpState from = state;
      if (from == QpState.ERR || from == QpState.RESET) {
        return false;
      }
      state = QpState.ERR;
      attrs.qpState(QpState.ERR);
      if (srq != null) {
        pd.context.raiseAsyncEvent(AsyncEvent.ofQp(AsyncEventType.QP_LAST_WQE_REACHED, this));
      }
      return true;
    }
  }

  /**
   * Provider: sets the state for a device-initiated transition other than ERR (SQD drained, SQE).
   *
   * @param s the state
   */
  protected final void deviceState(QpState s) {
    synchronized (qpLock()) {
      state = s;
      attrs.qpState(s);
    }
  }

  /**
   * The current attributes, read under the monitor by providers.
   *
   * @return a copy
   */
  protected final QpAttr currentAttrs() {
    synchronized (qpLock()) {
      return attrs.copy();
    }
  }

  @Override
  public QpAttr query() {
    synchronized (qpLock()) {
      ensureOpen();
      QpAttr q = attrs.copy();
      q.qpState(state).curQpState(state).cap(cap);
      q.sqDraining(state == QpState.SQD && sqDraining());
      liveAttrs(q);
      return q;
    }
  }

  /**
   * Provider: overwrites, in a query's result, the attributes the device moves as it runs: {@code
   * sq_psn} becomes the PSN of the next new request packet and {@code rq_psn} the PSN the
   * responder expects next, as rxe's {@code rxe_qp_to_attr} and mlx5 report them. Called under
   * the QP's monitor; only fields that modify set ({@code q.has(...)}) are replaced. Nothing by
   * default (a device whose PSNs do not move).
   *
   * @param q the attributes being returned
   */
  protected void liveAttrs(QpAttr q) {}

  /**
   * Provider: whether an SQD drain is still in progress.
   *
   * @return true while WRs started before SQD are outstanding
   */
  protected boolean sqDraining() {
    return false;
  }

  @Override
  public QpCap cap() {
    return cap;
  }

  @Override
  public QpInitAttr initAttr() {
    return init;
  }

  /**
   * The opcodes this provider implements (a subset of what the QP type allows); others fail with
   * EOPNOTSUPP at post.
   *
   * @return the opcodes
   */
  protected Set<WrOpcode> supportedOpcodes() {
    return CORE_OPS;
  }

  @Override
  public final void postSend(SendWr first) {
    ensureOpen();
    int index = 0;
    try {
      for (SendWr wr = first; wr != null; wr = wr.next(), index++) {
        validateSend(wr, index);
        if (sendQueueFull()) {
          throw new VerbsException(Errno.ENOMEM, "send queue of " + desc + " is full: max_send_wr="
              + cap.maxSendWr() + " outstanding", index, null);
        }
        enqueueSend(wr);
      }
    } finally {
      // the WRs before a bad one are posted (ibv_post_send semantics): ring the doorbell for them too
      if (index > 0) {
        sendPosted();
      }
    }
  }

  private void validateSend(SendWr wr, int index) {
    QpState s = state;
    if (s == QpState.RESET || s == QpState.INIT || s == QpState.RTR) {
      throw new VerbsException(Errno.EINVAL, "post_send on " + desc + " in state " + s
          + " (needs RTS, SQD, SQE or ERR)", index, null);
    }
    QpType t = type();
    WrOpcode op = wr.opcode();
    Set<WrOpcode> allowed;
    switch (t) {
      case UD:
        allowed = UD_OPS;
        break;
      case UC:
        allowed = UC_OPS;
        break;
      case DCT:
        throw new VerbsException(Errno.EINVAL, "post_send on " + desc + ": a DCT has no send queue", index, null);
      default:
        allowed = RC_OPS;
    }
    if (!allowed.contains(op)) {
      throw new VerbsException(Errno.EINVAL, "opcode=" + op + " is not valid on a " + t + " QP", index, null);
    }
    if (!supportedOpcodes().contains(op)) {
      throw new VerbsException(Errno.EOPNOTSUPP, "opcode=" + op + " is not supported by provider "
          + pd.context.device().provider(), index, null);
    }
    int numSge = wr.numSge();
    if (numSge > cap.maxSendSge()) {
      throw new VerbsException(Errno.EINVAL, "num_sge=" + numSge + " exceeds max_send_sge=" + cap.maxSendSge(), index,
          null);
    }
    long total = 0;
    for (int i = 0; i < numSge; i++) {
      int len = wr.sgList().sge(i).length();
      if (len < 0) {
        throw new VerbsException(Errno.EINVAL, "sge[" + i + "].length=" + len + " is negative", index, null);
      }
      total += len;
    }
    if (total > MAX_MESSAGE) {
      throw new VerbsException(Errno.EINVAL, "message length=" + total + " exceeds 2^31-1", index, null);
    }
    boolean inline = wr.hasFlag(SendFlag.INLINE);
    if (inline) {
      if (op != WrOpcode.SEND && op != WrOpcode.SEND_WITH_IMM && op != WrOpcode.RDMA_WRITE
          && op != WrOpcode.RDMA_WRITE_WITH_IMM) {
        throw new VerbsException(Errno.EINVAL, "IBV_SEND_INLINE is not valid with opcode=" + op, index, null);
      }
      if (total > cap.maxInlineData()) {
        throw new VerbsException(Errno.EINVAL, "inline length=" + total + " exceeds max_inline_data="
            + cap.maxInlineData(), index, null);
      }
    }
    InlineData.check(wr, inline, index, pd.context); // buffer SGEs only inline; inline data only from granted memory
    if (op.isAtomic()) {
      if (numSge < 1 || total < 8) {
        throw new VerbsException(Errno.EINVAL, "atomic local length=" + total + " is less than 8 bytes", index, null);
      }
      if ((wr.remoteAddr() & 7) != 0) {
        throw new VerbsException(Errno.EINVAL, "atomic remote_addr=0x" + Long.toHexString(wr.remoteAddr())
            + " is not 8-byte aligned", index, null);
      }
    }
    if (t == QpType.UD || t == QpType.DCI) {
      if (wr.ah() == null) {
        throw new VerbsException(Errno.EINVAL, "ah is null on a " + t + " send", index, null);
      }
      if (wr.ah().pd() != pd) {
        throw new VerbsException(Errno.EINVAL, "ah belongs to another PD than " + desc, index, null);
      }
      if (wr.ah() instanceof SoftAddressHandle && ((SoftAddressHandle) wr.ah()).isClosed()) {
        throw new VerbsException(Errno.EINVAL, "ah is destroyed", index, null);
      }
    }
  }

  /**
   * Provider: whether one more send WR would exceed the send queue.
   *
   * @return true if full
   */
  protected abstract boolean sendQueueFull();

  /**
   * Provider: copies a validated WR into the send queue (in ERR: queues it for a flush
   * completion). Must not keep a reference to {@code wr}; an INLINE WR's data is copied now, with
   * {@link InlineData#copy} (its SGE sources were checked).
   *
   * @param wr the WR
   */
  protected abstract void enqueueSend(SendWr wr);

  /** Provider: the doorbell after a chain was posted (wake the requester). */
  protected abstract void sendPosted();

  @Override
  public final void postRecv(RecvWr first) {
    ensureOpen();
    if (srq != null) {
      throw new VerbsException(Errno.EINVAL, "post_recv on " + desc + ": it uses SRQ " + srq.srqNum()
          + "; post to the SRQ", 0, null);
    }
    if (rq == null) {
      throw new VerbsException(Errno.EINVAL, "post_recv on " + desc + ": it has no receive queue", 0, null);
    }
    QpState s = state;
    if (s == QpState.RESET) {
      throw new VerbsException(Errno.EINVAL, "post_recv on " + desc + " in state RESET", 0, null);
    }
    try {
      rq.post(first, rqDesc); // the name is built once: postRecv allocates nothing
    } finally {
      // WRs before a bad one stay posted; tell the provider either way (a no-op if none were)
      recvPosted();
    }
  }

  /** Provider: receive WRs were posted (flush them in ERR; resume an RNR-waiting responder). */
  protected abstract void recvPosted();

  @Override
  public ProtectionDomain pd() {
    return pd;
  }

  @Override
  public CompletionQueue sendCq() {
    return sendCq;
  }

  @Override
  public CompletionQueue recvCq() {
    return recvCq;
  }

  @Override
  public SharedReceiveQueue srq() {
    return srq;
  }

  @Override
  public Context context() {
    return pd.context;
  }

  @Override
  public final void close() {
    synchronized (qpLock()) {
      if (closed) {
        return;
      }
      closed = true;
      state = QpState.RESET;
    }
    destroy();
    if (sendCq != null) {
      sendCq.users.remove(this);
    }
    if (recvCq != null) {
      recvCq.users.remove(this);
    }
    if (srq != null) {
      srq.qps.remove(this);
    }
    pd.children.remove(this);
    pd.context.qps.release();
    pd.softContext().memoryAccount().release(this);
  }

  /** Provider: stops processing for this QP and releases its resources. Called once. */
  protected abstract void destroy();

  @Override
  public String toString() {
    return desc + "[" + state + "]";
  }
}
