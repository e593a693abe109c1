package io.github.verbs4j.verbs;

/**
 * A work completion ({@code struct ibv_wc}), filled in by {@link CompletionQueue#poll}.
 *
 * <p>Mutable and reusable: the caller owns an array of these and the provider overwrites them, so
 * polling allocates nothing. For a completion with an error status only {@link #wrId()}, {@link
 * #status()}, {@link #qpNum()} and {@link #vendorErr()} carry libibverbs-defined values; verbs4j
 * also fills {@link #opcode()} deterministically (the operation of the WR). {@link #immData()} is
 * in network byte order as in C. {@link #timestampNanos()} is the completion time on the
 * context's clock (wall or modelled), as {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}.
 *
 * <p>The setters are for providers; applications only read.
 */
public final class WorkCompletion {
  private long wrId;
  private WcStatus status = WcStatus.SUCCESS;
  private WcOpcode opcode = WcOpcode.SEND;
  private int vendorErr;
  private int byteLen;
  private int immData;
  private int invalidatedRkey;
  private int qpNum;
  private int srcQp;
  private int wcFlags;
  private int pkeyIndex;
  private int slid;
  private int sl;
  private int dlidPathBits;
  private long timestampNanos;

  /** Creates an empty completion. */
  public WorkCompletion() {}

  /**
   * Allocates an array of {@code n} completions for {@link CompletionQueue#poll}.
   *
   * @param n the size
   * @return the array
   */
  public static WorkCompletion[] array(int n) {
    WorkCompletion[] a = new WorkCompletion[n];
    for (int i = 0; i < n; i++) {
      a[i] = new WorkCompletion();
    }
    return a;
  }

  /** @return the WR's identifier */
  public long wrId() {
    return wrId;
  }

  /** @return the status */
  public WcStatus status() {
    return status;
  }

  /** @return the operation */
  public WcOpcode opcode() {
    return opcode;
  }

  /** @return the vendor syndrome (0 unless the provider documents one) */
  public int vendorErr() {
    return vendorErr;
  }

  /** @return bytes transferred (receives: message length, UD including the 40-byte GRH area) */
  public int byteLen() {
    return byteLen;
  }

  /** @return immediate data in network byte order, valid with {@link WcFlag#WITH_IMM} */
  public int immData() {
    return immData;
  }

  /** @return the invalidated rkey, valid with {@link WcFlag#WITH_INV} */
  public int invalidatedRkey() {
    return invalidatedRkey;
  }

  /** @return the local QP number (with an SRQ: the QP that received) */
  public int qpNum() {
    return qpNum;
  }

  /** @return the source QP number (UD and DCT receives) */
  public int srcQp() {
    return srcQp;
  }

  /** @return the {@link WcFlag} mask */
  public int wcFlags() {
    return wcFlags;
  }

  /**
   * @param flag a flag
   * @return whether it is set
   */
  public boolean hasFlag(WcFlag flag) {
    return (wcFlags & flag.value()) != 0;
  }

  /** @return the P_Key index (GSI only) */
  public int pkeyIndex() {
    return pkeyIndex;
  }

  /** @return the source LID (UD) */
  public int slid() {
    return slid;
  }

  /** @return the service level (UD) */
  public int sl() {
    return sl;
  }

  /** @return the destination LID path bits (UD) */
  public int dlidPathBits() {
    return dlidPathBits;
  }

  /** @return the completion time on the context's clock, nanoseconds */
  public long timestampNanos() {
    return timestampNanos;
  }

  /**
   * Provider: resets every field and sets the ones every completion has.
   *
   * @param wrId the WR id
   * @param status the status
   * @param opcode the opcode
   * @param qpNum the local QP number
   * @return this
   */
  public WorkCompletion reset(long wrId, WcStatus status, WcOpcode opcode, int qpNum) {
    this.wrId = wrId;
    this.status = status;
    this.opcode = opcode;
    this.qpNum = qpNum;
    this.vendorErr = 0;
    this.byteLen = 0;
    this.immData = 0;
    this.invalidatedRkey = 0;
    this.srcQp = 0;
    this.wcFlags = 0;
    this.pkeyIndex = 0;
    this.slid = 0;
    this.sl = 0;
    this.dlidPathBits = 0;
    this.timestampNanos = 0;
    return this;
  }

  /**
   * Provider: sets the byte count.
   *
   * @param byteLen bytes
   * @return this
   */
  public WorkCompletion byteLen(int byteLen) {
    this.byteLen = byteLen;
    return this;
  }

  /**
   * Provider: sets the immediate data and the WITH_IMM flag.
   *
   * @param immData network-order immediate
   * @return this
   */
  public WorkCompletion withImm(int immData) {
    this.immData = immData;
    this.wcFlags |= WcFlag.WITH_IMM.value();
    return this;
  }

  /**
   * Provider: sets the invalidated rkey and the WITH_INV flag.
   *
   * @param rkey the rkey
   * @return this
   */
  public WorkCompletion withInv(int rkey) {
    this.invalidatedRkey = rkey;
    this.wcFlags |= WcFlag.WITH_INV.value();
    return this;
  }

  /**
   * Provider: sets the datagram source fields.
   *
   * @param srcQp the source QPN
   * @param slid the source LID
   * @param sl the service level
   * @param grh whether a GRH is present (sets {@link WcFlag#GRH})
   * @return this
   */
  public WorkCompletion source(int srcQp, int slid, int sl, boolean grh) {
    this.srcQp = srcQp;
    this.slid = slid;
    this.sl = sl;
    if (grh) {
      this.wcFlags |= WcFlag.GRH.value();
    }
    return this;
  }

  /**
   * Provider: sets the vendor error.
   *
   * @param vendorErr the syndrome
   * @return this
   */
  public WorkCompletion vendorErr(int vendorErr) {
    this.vendorErr = vendorErr;
    return this;
  }

  /**
   * Provider: sets the timestamp.
   *
   * @param nanos completion time on the context clock
   * @return this
   */
  public WorkCompletion timestampNanos(long nanos) {
    this.timestampNanos = nanos;
    return this;
  }

  /**
   * Copies every field from {@code other}.
   *
   * @param other the source
   * @return this
   */
  public WorkCompletion copyFrom(WorkCompletion other) {
    wrId = other.wrId;
    status = other.status;
    opcode = other.opcode;
    vendorErr = other.vendorErr;
    byteLen = other.byteLen;
    immData = other.immData;
    invalidatedRkey = other.invalidatedRkey;
    qpNum = other.qpNum;
    srcQp = other.srcQp;
    wcFlags = other.wcFlags;
    pkeyIndex = other.pkeyIndex;
    slid = other.slid;
    sl = other.sl;
    dlidPathBits = other.dlidPathBits;
    timestampNanos = other.timestampNanos;
    return this;
  }

  @Override
  public String toString() {
    return "WorkCompletion{wrId=" + wrId + ", status=" + status + ", opcode=" + opcode + ", byteLen=" + byteLen
        + ", qpNum=0x" + Integer.toHexString(qpNum) + ", srcQp=0x" + Integer.toHexString(srcQp) + ", flags="
        + wcFlags + ", imm=0x" + Integer.toHexString(immData) + '}';
  }
}
