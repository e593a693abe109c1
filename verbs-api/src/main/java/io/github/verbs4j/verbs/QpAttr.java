package io.github.verbs4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * Queue pair attributes ({@code struct ibv_qp_attr}) together with the attribute mask.
 *
 * <p>Every setter records its {@link QpAttrMask} bit, so the set of fields that were set <em>is</em>
 * the mask passed to {@code ibv_modify_qp}: {@link #mask()}. {@link QueuePair#modify} checks the
 * mask against the transition table (required and optional attributes per transition and QP type)
 * and fails with {@link Errno#EINVAL} naming a missing or extra attribute. {@link
 * QueuePair#query()} returns an instance with every field set.
 *
 * <pre>{@code
 * qp.modify(new QpAttr().qpState(QpState.INIT).pkeyIndex(0).portNum(1)
 *     .qpAccessFlags(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
 * }</pre>
 *
 * <p>Mutable, not thread-safe.
 */
public final class QpAttr {
  private int mask;
  private QpState qpState = QpState.RESET;
  private QpState curQpState = QpState.RESET;
  private boolean enSqdAsyncNotify;
  private boolean sqDraining;
  private int qpAccessFlags;
  private int pkeyIndex;
  private int portNum;
  private int qkey;
  private AhAttr ahAttr;
  private Mtu pathMtu = Mtu.MTU_1024;
  private int timeout;
  private int retryCnt;
  private int rnrRetry;
  private int rqPsn;
  private int maxRdAtomic;
  private int minRnrTimer;
  private int sqPsn;
  private int maxDestRdAtomic;
  private MigState pathMigState = MigState.MIGRATED;
  private QpCap cap;
  private int destQpNum;
  private int rateLimit;

  /** Creates attributes with an empty mask. */
  public QpAttr() {}

  private QpAttr set(QpAttrMask bit) {
    mask |= bit.value();
    return this;
  }

  /** @return the attribute mask: the bits of every field that was set */
  public int mask() {
    return mask;
  }

  /**
   * @param bit a mask bit
   * @return whether that field was set
   */
  public boolean has(QpAttrMask bit) {
    return (mask & bit.value()) != 0;
  }

  /** @return the mask as an enum set */
  public EnumSet<QpAttrMask> maskSet() {
    return QpAttrMask.fromMask(mask);
  }

  /**
   * Target state ({@link QpAttrMask#STATE}).
   *
   * @param s the state
   * @return this
   */
  public QpAttr qpState(QpState s) {
    qpState = s;
    return set(QpAttrMask.STATE);
  }

  /** @return the target (or, from query, current) state */
  public QpState qpState() {
    return qpState;
  }

  /**
   * Asserted current state ({@link QpAttrMask#CUR_STATE}).
   *
   * @param s the state
   * @return this
   */
  public QpAttr curQpState(QpState s) {
    curQpState = s;
    return set(QpAttrMask.CUR_STATE);
  }

  /** @return the asserted current state */
  public QpState curQpState() {
    return curQpState;
  }

  /**
   * Raise {@link AsyncEventType#SQ_DRAINED} when SQD completes ({@link QpAttrMask#EN_SQD_ASYNC_NOTIFY}).
   *
   * @param on enable
   * @return this
   */
  public QpAttr enSqdAsyncNotify(boolean on) {
    enSqdAsyncNotify = on;
    return set(QpAttrMask.EN_SQD_ASYNC_NOTIFY);
  }

  /** @return whether SQ_DRAINED is requested */
  public boolean enSqdAsyncNotify() {
    return enSqdAsyncNotify;
  }

  /** @return from query: whether the QP is in SQD and still draining */
  public boolean sqDraining() {
    return sqDraining;
  }

  /**
   * Provider: sets the query-only draining flag.
   *
   * @param on draining
   * @return this
   */
  public QpAttr sqDraining(boolean on) {
    sqDraining = on;
    return this;
  }

  /**
   * Remote access the QP allows ({@link QpAttrMask#ACCESS_FLAGS}).
   *
   * @param flags REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC (LOCAL_WRITE is accepted and ignored)
   * @return this
   */
  public QpAttr qpAccessFlags(Set<Access> flags) {
    qpAccessFlags = Access.mask(flags);
    return set(QpAttrMask.ACCESS_FLAGS);
  }

  /**
   * Remote access the QP allows, as a raw mask.
   *
   * @param accessMask an {@link Access} mask
   * @return this
   */
  public QpAttr qpAccessFlags(int accessMask) {
    qpAccessFlags = accessMask;
    return set(QpAttrMask.ACCESS_FLAGS);
  }

  /** @return the QP access mask */
  public int qpAccessFlags() {
    return qpAccessFlags;
  }

  /**
   * ({@link QpAttrMask#PKEY_INDEX}).
   *
   * @param i P_Key index
   * @return this
   */
  public QpAttr pkeyIndex(int i) {
    pkeyIndex = i;
    return set(QpAttrMask.PKEY_INDEX);
  }

  /** @return the P_Key index */
  public int pkeyIndex() {
    return pkeyIndex;
  }

  /**
   * ({@link QpAttrMask#PORT}).
   *
   * @param p physical port, 1-based
   * @return this
   */
  public QpAttr portNum(int p) {
    portNum = p;
    return set(QpAttrMask.PORT);
  }

  /** @return the port */
  public int portNum() {
    return portNum;
  }

  /**
   * ({@link QpAttrMask#QKEY}, UD).
   *
   * @param q the Q_Key
   * @return this
   */
  public QpAttr qkey(int q) {
    qkey = q;
    return set(QpAttrMask.QKEY);
  }

  /** @return the Q_Key */
  public int qkey() {
    return qkey;
  }

  /**
   * Destination address ({@link QpAttrMask#AV}).
   *
   * @param ah the address vector
   * @return this
   */
  public QpAttr ahAttr(AhAttr ah) {
    ahAttr = ah;
    return set(QpAttrMask.AV);
  }

  /** @return the address vector */
  public AhAttr ahAttr() {
    return ahAttr;
  }

  /**
   * ({@link QpAttrMask#PATH_MTU}).
   *
   * @param mtu the path MTU
   * @return this
   */
  public QpAttr pathMtu(Mtu mtu) {
    pathMtu = mtu;
    return set(QpAttrMask.PATH_MTU);
  }

  /** @return the path MTU */
  public Mtu pathMtu() {
    return pathMtu;
  }

  /**
   * Local ACK timeout, 4.096 µs × 2^timeout, 0 = infinite ({@link QpAttrMask#TIMEOUT}).
   *
   * @param t 0..31
   * @return this
   */
  public QpAttr timeout(int t) {
    timeout = t;
    return set(QpAttrMask.TIMEOUT);
  }

  /** @return the timeout code */
  public int timeout() {
    return timeout;
  }

  /**
   * Transport retries ({@link QpAttrMask#RETRY_CNT}); 7 means seven, not infinite.
   *
   * @param n 0..7
   * @return this
   */
  public QpAttr retryCnt(int n) {
    retryCnt = n;
    return set(QpAttrMask.RETRY_CNT);
  }

  /** @return the retry count */
  public int retryCnt() {
    return retryCnt;
  }

  /**
   * RNR retries ({@link QpAttrMask#RNR_RETRY}); 7 means infinite.
   *
   * @param n 0..7
   * @return this
   */
  public QpAttr rnrRetry(int n) {
    rnrRetry = n;
    return set(QpAttrMask.RNR_RETRY);
  }

  /** @return the RNR retry count */
  public int rnrRetry() {
    return rnrRetry;
  }

  /**
   * Expected PSN of the first incoming request ({@link QpAttrMask#RQ_PSN}), 24 bits.
   *
   * @param psn the PSN
   * @return this
   */
  public QpAttr rqPsn(int psn) {
    rqPsn = psn;
    return set(QpAttrMask.RQ_PSN);
  }

  /** @return the receive PSN */
  public int rqPsn() {
    return rqPsn;
  }

  /**
   * Outstanding READ/ATOMIC this QP may issue ({@link QpAttrMask#MAX_QP_RD_ATOMIC}).
   *
   * @param n initiator depth
   * @return this
   */
  public QpAttr maxRdAtomic(int n) {
    maxRdAtomic = n;
    return set(QpAttrMask.MAX_QP_RD_ATOMIC);
  }

  /** @return initiator depth */
  public int maxRdAtomic() {
    return maxRdAtomic;
  }

  /**
   * RNR NAK timer code the responder advertises ({@link QpAttrMask#MIN_RNR_TIMER}).
   *
   * @param code 0..31
   * @return this
   */
  public QpAttr minRnrTimer(int code) {
    minRnrTimer = code;
    return set(QpAttrMask.MIN_RNR_TIMER);
  }

  /** @return the RNR timer code */
  public int minRnrTimer() {
    return minRnrTimer;
  }

  /**
   * PSN of the first outgoing packet ({@link QpAttrMask#SQ_PSN}), 24 bits.
   *
   * @param psn the PSN
   * @return this
   */
  public QpAttr sqPsn(int psn) {
    sqPsn = psn;
    return set(QpAttrMask.SQ_PSN);
  }

  /** @return the send PSN */
  public int sqPsn() {
    return sqPsn;
  }

  /**
   * Responder resources for incoming READ/ATOMIC ({@link QpAttrMask#MAX_DEST_RD_ATOMIC}).
   *
   * @param n responder depth
   * @return this
   */
  public QpAttr maxDestRdAtomic(int n) {
    maxDestRdAtomic = n;
    return set(QpAttrMask.MAX_DEST_RD_ATOMIC);
  }

  /** @return responder depth */
  public int maxDestRdAtomic() {
    return maxDestRdAtomic;
  }

  /**
   * ({@link QpAttrMask#PATH_MIG_STATE}).
   *
   * @param s the migration state
   * @return this
   */
  public QpAttr pathMigState(MigState s) {
    pathMigState = s;
    return set(QpAttrMask.PATH_MIG_STATE);
  }

  /** @return the migration state */
  public MigState pathMigState() {
    return pathMigState;
  }

  /**
   * New capacities ({@link QpAttrMask#CAP}); only with {@link DeviceCap#RESIZE_MAX_WR}.
   *
   * @param c capacities
   * @return this
   */
  public QpAttr cap(QpCap c) {
    cap = c;
    return set(QpAttrMask.CAP);
  }

  /** @return capacities */
  public QpCap cap() {
    return cap;
  }

  /**
   * Remote QP number ({@link QpAttrMask#DEST_QPN}).
   *
   * @param qpn 24-bit QPN
   * @return this
   */
  public QpAttr destQpNum(int qpn) {
    destQpNum = qpn;
    return set(QpAttrMask.DEST_QPN);
  }

  /** @return the remote QPN */
  public int destQpNum() {
    return destQpNum;
  }

  /**
   * ({@link QpAttrMask#RATE_LIMIT}).
   *
   * @param kbps rate limit
   * @return this
   */
  public QpAttr rateLimit(int kbps) {
    rateLimit = kbps;
    return set(QpAttrMask.RATE_LIMIT);
  }

  /** @return the rate limit */
  public int rateLimit() {
    return rateLimit;
  }

  /**
   * Copies the fields selected by {@code bits} from {@code other} into this instance, marking them
   * set. Used by providers to merge a successful modify into the QP's current attributes.
   *
   * @param other the source
   * @param bits which fields to copy
   * @return this
   */
  public QpAttr merge(QpAttr other, int bits) {
    if ((bits & QpAttrMask.STATE.value()) != 0) {
      qpState(other.qpState);
    }
    if ((bits & QpAttrMask.CUR_STATE.value()) != 0) {
      curQpState(other.curQpState);
    }
    if ((bits & QpAttrMask.EN_SQD_ASYNC_NOTIFY.value()) != 0) {
      enSqdAsyncNotify(other.enSqdAsyncNotify);
    }
    if ((bits & QpAttrMask.ACCESS_FLAGS.value()) != 0) {
      qpAccessFlags(other.qpAccessFlags);
    }
    if ((bits & QpAttrMask.PKEY_INDEX.value()) != 0) {
      pkeyIndex(other.pkeyIndex);
    }
    if ((bits & QpAttrMask.PORT.value()) != 0) {
      portNum(other.portNum);
    }
    if ((bits & QpAttrMask.QKEY.value()) != 0) {
      qkey(other.qkey);
    }
    if ((bits & QpAttrMask.AV.value()) != 0) {
      ahAttr(other.ahAttr);
    }
    if ((bits & QpAttrMask.PATH_MTU.value()) != 0) {
      pathMtu(other.pathMtu);
    }
    if ((bits & QpAttrMask.TIMEOUT.value()) != 0) {
      timeout(other.timeout);
    }
    if ((bits & QpAttrMask.RETRY_CNT.value()) != 0) {
      retryCnt(other.retryCnt);
    }
    if ((bits & QpAttrMask.RNR_RETRY.value()) != 0) {
      rnrRetry(other.rnrRetry);
    }
    if ((bits & QpAttrMask.RQ_PSN.value()) != 0) {
      rqPsn(other.rqPsn);
    }
    if ((bits & QpAttrMask.MAX_QP_RD_ATOMIC.value()) != 0) {
      maxRdAtomic(other.maxRdAtomic);
    }
    if ((bits & QpAttrMask.MIN_RNR_TIMER.value()) != 0) {
      minRnrTimer(other.minRnrTimer);
    }
    if ((bits & QpAttrMask.SQ_PSN.value()) != 0) {
      sqPsn(other.sqPsn);
    }
    if ((bits & QpAttrMask.MAX_DEST_RD_ATOMIC.value()) != 0) {
      maxDestRdAtomic(other.maxDestRdAtomic);
    }
    if ((bits & QpAttrMask.PATH_MIG_STATE.value()) != 0) {
      pathMigState(other.pathMigState);
    }
    if ((bits & QpAttrMask.CAP.value()) != 0) {
      cap(other.cap);
    }
    if ((bits & QpAttrMask.DEST_QPN.value()) != 0) {
      destQpNum(other.destQpNum);
    }
    if ((bits & QpAttrMask.RATE_LIMIT.value()) != 0) {
      rateLimit(other.rateLimit);
    }
    return this;
  }

  /**
   * A copy of every field and the mask.
   *
   * @return the copy
   */
  public QpAttr copy() {
    QpAttr c = new QpAttr().merge(this, mask);
    c.mask = mask;
    c.sqDraining = sqDraining;
    return c;
  }

  @Override
  public String toString() {
    return "QpAttr{mask=" + QpAttrMask.describe(mask) + ", state=" + qpState + ", access=" + qpAccessFlags
        + ", port=" + portNum + ", qkey=0x" + Integer.toHexString(qkey) + ", mtu=" + pathMtu + ", destQpn=0x"
        + Integer.toHexString(destQpNum) + ", rqPsn=0x" + Integer.toHexString(rqPsn) + ", sqPsn=0x"
        + Integer.toHexString(sqPsn) + ", timeout=" + timeout + ", retry=" + retryCnt + ", rnrRetry=" + rnrRetry
        + ", minRnrTimer=" + minRnrTimer + ", rdAtomic=" + maxRdAtomic + "/" + maxDestRdAtomic + '}';
  }
}
