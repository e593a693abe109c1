package io.github.verbs4j.verbs.spi;

import io.github.verbs4j.verbs.Access;
import io.github.verbs4j.verbs.AddressHandle;
import io.github.verbs4j.verbs.AhAttr;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.MemoryKind;
import io.github.verbs4j.verbs.MemoryRegion;
import io.github.verbs4j.verbs.QpCap;
import io.github.verbs4j.verbs.QpInitAttr;
import io.github.verbs4j.verbs.QpType;
import io.github.verbs4j.verbs.QueuePair;
import io.github.verbs4j.verbs.SharedReceiveQueue;
import io.github.verbs4j.verbs.SrqAttr;
import io.github.verbs4j.verbs.VerbsException;
import java.nio.ByteBuffer;
import java.util.Set;

/**
 * The shared base of every provider's protection domain: validation of registrations, QP, SRQ and
 * AH creation against the device limits, and child tracking. Providers supply QP creation and may
 * override memory allocation and addressing (the TCA provider allocates from its pinned pool and
 * places regions in the board's global address window).
 */
public abstract class AbstractProtectionDomain implements io.github.verbs4j.verbs.ProtectionDomain {
  /**
   * Access bits a region may carry: the standard ones, ZERO_BASED (key-relative addresses are
   * offsets), HUGETLB (a hint about the pages behind the region, which has no effect here: the
   * simulated device has no page tables) and the optional range, which is ignored. The kernel's
   * {@code ib_check_mr_access} accepts all of these; MW_BIND, ON_DEMAND and FLUSH_* stay EOPNOTSUPP.
   */
  private static final int SUPPORTED_ACCESS = Access.LOCAL_WRITE.value() | Access.REMOTE_WRITE.value()
      | Access.REMOTE_READ.value() | Access.REMOTE_ATOMIC.value() | Access.ZERO_BASED.value()
      | Access.HUGETLB.value() | Access.RELAXED_ORDERING.value();

  /** The context. */
  protected final AbstractContext context;
  private final int handle;
  /** Open MRs, QPs, SRQs and AHs. */
  final OpenSet children = new OpenSet();
  private volatile boolean closed;

  /**
   * @param context the owning context
   * @param handle the PD number
   */
  protected AbstractProtectionDomain(AbstractContext context, int handle) {
    this.context = context;
    this.handle = handle;
  }

  /** @return the PD number */
  public int handle() {
    return handle;
  }

  /** @return the context as the SPI type */
  public AbstractContext softContext() {
    return context;
  }

  /**
   * Fails if this PD or its context is closed.
   *
   * @throws VerbsException EBADF
   */
  protected void ensureOpen() {
    if (closed) {
      throw new VerbsException(Errno.EBADF, "PD " + handle + " is closed");
    }
    context.ensureOpen();
  }

  private static int checkAccess(Set<Access> access) {
    int mask = Access.mask(access);
    if ((mask & ~SUPPORTED_ACCESS) != 0) {
      throw new VerbsException(Errno.EOPNOTSUPP, "access flags " + Access.fromMask(mask & ~SUPPORTED_ACCESS)
          + " are not supported");
    }
    boolean localWrite = access.contains(Access.LOCAL_WRITE);
    if (access.contains(Access.REMOTE_WRITE) && !localWrite) {
      throw VerbsException.invalid("access REMOTE_WRITE requires LOCAL_WRITE (ibv_reg_mr)");
    }
    if (access.contains(Access.REMOTE_ATOMIC) && !localWrite) {
      throw VerbsException.invalid("access REMOTE_ATOMIC requires LOCAL_WRITE (ibv_reg_mr)");
    }
    return mask;
  }

  @Override
  public MemoryRegion registerMemory(ByteBuffer buffer, Set<Access> access) {
    ensureOpen();
    if (buffer == null) {
      throw VerbsException.invalid("buffer is null");
    }
    if (!buffer.isDirect()) {
      throw VerbsException.invalid("buffer is a heap buffer: register a direct ByteBuffer");
    }
    if (!buffer.hasRemaining()) {
      throw VerbsException.invalid("length=0: the buffer has no bytes between position and limit");
    }
    int mask = checkAccess(access);
    ByteBuffer region = buffer.slice();
    checkZeroBasedAtomics(region, mask);
    return track(newMr(region, addressOf(region), mask, MemoryKind.HOST));
  }

  @Override
  public MemoryRegion allocateMemory(long length, Set<Access> access) {
    return allocateMemory(length, access, MemoryKind.HOST);
  }

  @Override
  public MemoryRegion allocateMemory(long length, Set<Access> access, MemoryKind kind) {
    ensureOpen();
    DeviceAttr attr = context.queryDevice();
    long max = Math.min(attr.maxMrSize(), Integer.MAX_VALUE);
    if (length < 1 || length > max) {
      throw VerbsException.invalid("length=" + length + " is outside [1, max_mr_size=" + max + "]");
    }
    if (kind == MemoryKind.DEVICE && !attr.has(Capability.DEVICE_MEMORY)) {
      throw new VerbsException(Errno.EOPNOTSUPP, "kind=DEVICE: this device has no DEVICE_MEMORY capability");
    }
    int mask = checkAccess(access);
    ByteBuffer memory;
    try {
      memory = allocate((int) length, kind);
    } catch (OutOfMemoryError e) { // last resort: a provider's pool could not grow
      throw DirectMemory.noMemory(length, e.getMessage());
    }
    SoftMemoryRegion mr = newMr(memory, addressOf(memory), mask, kind);
    if (freeAtClose(kind)) {
      mr.freeAtClose(memory);
    }
    return track(mr);
  }

  /**
   * A ZERO_BASED region with REMOTE_ATOMIC must start 8-byte aligned in memory: atomics are 8-byte
   * aligned offsets, and the device executes them as aligned 8-byte operations on the memory.
   */
  private static void checkZeroBasedAtomics(ByteBuffer region, int mask) {
    if (Access.ZERO_BASED.isSet(mask) && Access.REMOTE_ATOMIC.isSet(mask) && (DirectAddress.of(region) & 7) != 0) {
      throw VerbsException.invalid("access ZERO_BASED with REMOTE_ATOMIC needs a buffer whose first byte is 8-byte"
          + " aligned; address=0x" + Long.toHexString(DirectAddress.of(region)));
    }
  }

  private SoftMemoryRegion track(SoftMemoryRegion mr) {
    mr.keys(context.memoryKeys().insert(mr, context.queryDevice().maxMr()));
    children.add(mr, "MR lkey=0x" + Integer.toHexString(mr.lkey()));
    context.memoryAccount().add(mr, MemoryComponent.MR, HcaFootprint.mr());
    return mr;
  }

  /**
   * Allocates memory for {@link #allocateMemory}. Default: a zeroed direct buffer, if the JVM's
   * direct memory limit leaves room for it ({@link DirectMemory}).
   *
   * @param length bytes
   * @param kind host or device
   * @return the memory
   * @throws VerbsException ENOMEM if there is not enough memory
   */
  protected ByteBuffer allocate(int length, MemoryKind kind) {
    return DirectMemory.allocate(length);
  }

  /**
   * Whether memory from {@link #allocate} is freed when its region closes ({@link
   * DirectMemory#free}, after any access already inside it), rather than when a GC collects it.
   * Default: true. A provider whose {@link #allocate} takes memory from elsewhere returns false and
   * gives the memory back itself.
   *
   * @param kind host or device
   * @return whether {@link SoftMemoryRegion#close()} frees it
   */
  protected boolean freeAtClose(MemoryKind kind) {
    return true;
  }

  /**
   * The virtual address a region gets. Default: the native address of the buffer.
   *
   * @param memory the region's memory
   * @return its address
   */
  protected long addressOf(ByteBuffer memory) {
    return DirectAddress.of(memory);
  }

  /**
   * Creates the region object; providers may subclass {@link SoftMemoryRegion}.
   *
   * @param memory the memory
   * @param address its virtual address
   * @param accessMask validated access
   * @param kind host or device
   * @return the region (keys are assigned by the caller)
   */
  protected SoftMemoryRegion newMr(ByteBuffer memory, long address, int accessMask, MemoryKind kind) {
    return new SoftMemoryRegion(this, memory, address, accessMask, kind);
  }

  void mrClosed(SoftMemoryRegion mr, KeyTable.Keys keys) {
    context.memoryKeys().remove(keys);
    children.remove(mr);
    context.memoryAccount().release(mr);
  }

  /**
   * The QP types this provider implements; others fail with EOPNOTSUPP.
   *
   * @return the types
   */
  protected abstract Set<QpType> supportedQpTypes();

  @Override
  public QueuePair createQp(QpInitAttr attr) {
    ensureOpen();
    DeviceAttr dev = context.queryDevice();
    QpType type = attr.qpType();
    if (!supportedQpTypes().contains(type)) {
      throw new VerbsException(Errno.EOPNOTSUPP, "qp_type=" + type + " is not supported by provider "
          + context.device().provider());
    }
    QpCap cap = attr.cap();
    checkRange("max_send_wr", cap.maxSendWr(), 0, dev.maxQpWr(), "max_qp_wr");
    checkRange("max_send_sge", cap.maxSendSge(), 0, dev.maxSge(), "max_sge");
    checkRange("max_inline_data", cap.maxInlineData(), 0, dev.maxInlineData(), "max_inline_data");
    if (attr.srq() == null) {
      checkRange("max_recv_wr", cap.maxRecvWr(), 0, dev.maxQpWr(), "max_qp_wr");
      checkRange("max_recv_sge", cap.maxRecvSge(), 0, dev.maxSge(), "max_sge");
    }
    if (type != QpType.DCT) {
      checkCq("send_cq", attr.sendCq());
    }
    if (type != QpType.DCI) {
      checkCq("recv_cq", attr.recvCq());
    }
    if (type == QpType.DCI && (cap.maxRecvWr() != 0 || cap.maxRecvSge() != 0 || attr.srq() != null)) {
      throw VerbsException.invalid("DCI is send-only: max_recv_wr=" + cap.maxRecvWr() + " and max_recv_sge="
          + cap.maxRecvSge() + " must be 0 and no SRQ given");
    }
    if (type == QpType.DCT && attr.srq() == null) {
      throw VerbsException.invalid("DCT requires an SRQ (srq is null)");
    }
    if (attr.srq() != null) {
      if (!(attr.srq() instanceof SoftSharedReceiveQueue) || ((SoftSharedReceiveQueue) attr.srq()).isClosed()
          || ((AbstractProtectionDomain) attr.srq().pd()).context != context) {
        throw VerbsException.invalid("srq belongs to another context or is closed");
      }
      if (type != QpType.RC && type != QpType.UD && type != QpType.DCT && type != QpType.UC) {
        throw VerbsException.invalid("qp_type=" + type + " cannot use an SRQ");
      }
    }
    context.qps.acquire();
    AbstractQueuePair qp;
    try {
      qp = newQp(attr);
    } catch (RuntimeException e) {
      context.qps.release();
      throw e;
    }
    children.add(qp, type + " QP 0x" + Integer.toHexString(qp.qpNum()));
    context.memoryAccount().add(qp, HcaFootprint.componentOf(type), HcaFootprint.qp(type, qp.cap(), attr.srq() != null));
    qp.attachUsers();
    return qp;
  }

  private void checkCq(String field, CompletionQueue cq) {
    if (cq == null) {
      throw VerbsException.invalid(field + " is null");
    }
    if (!(cq instanceof SoftCompletionQueue) || cq.context() != context) {
      throw VerbsException.invalid(field + " belongs to another context");
    }
  }

  /**
   * The checks of an address vector ({@code ibv_create_ah}, and a QP's {@code ah_attr}).
   *
   * @param prefix what to put before each field's name, e.g. {@code "ah_attr."}
   * @param attr the attributes
   * @param context the context whose device and port they must fit
   * @throws VerbsException EINVAL naming the first field out of range
   */
  static void checkAh(String prefix, AhAttr attr, AbstractContext context) {
    checkRange(prefix + "port_num", attr.portNum(), 1, context.queryDevice().physPortCnt(), "phys_port_cnt");
    checkRange(prefix + "dlid", attr.dlid(), 1, 0xBFFF, "unicast LID");
    checkRange(prefix + "sl", attr.sl(), 0, 15, "sl");
    if (attr.isGlobal()) {
      if (attr.dgid() == null || attr.dgid().length != 16) {
        throw VerbsException.invalid(prefix + "is_global=true needs a 16-byte dgid");
      }
      int gids = context.queryPort(attr.portNum()).gidTblLen();
      checkRange(prefix + "grh.sgid_index", attr.sgidIndex(), 0, gids - 1, "gid_tbl_len-1");
    }
  }

  static void checkRange(String field, long value, long min, long max, String limitName) {
    if (value < min || value > max) {
      throw VerbsException.invalid(field + "=" + value + " is outside [" + min + ", " + limitName + "=" + max + "]");
    }
  }

  /**
   * Creates the provider's QP from validated attributes.
   *
   * @param attr validated attributes
   * @return the QP, in RESET
   */
  protected abstract AbstractQueuePair newQp(QpInitAttr attr);

  @Override
  public SharedReceiveQueue createSrq(SrqAttr attr) {
    ensureOpen();
    DeviceAttr dev = context.queryDevice();
    checkRange("max_wr", attr.maxWr(), 1, dev.maxSrqWr(), "max_srq_wr");
    checkRange("max_sge", attr.maxSge(), 1, dev.maxSrqSge(), "max_srq_sge");
    context.srqs.acquire();
    SoftSharedReceiveQueue srq;
    try {
      srq = newSrq(attr, context.nextSrqNum());
    } catch (RuntimeException e) {
      context.srqs.release();
      throw e;
    }
    children.add(srq, "SRQ " + srq.srqNum());
    context.memoryAccount().add(srq, MemoryComponent.SRQ, HcaFootprint.srq(attr.maxWr(), attr.maxSge()));
    return srq;
  }

  /**
   * Creates the SRQ; providers may subclass {@link SoftSharedReceiveQueue}.
   *
   * @param attr validated attributes
   * @param srqNum its number
   * @return the SRQ
   */
  protected SoftSharedReceiveQueue newSrq(SrqAttr attr, int srqNum) {
    return new SoftSharedReceiveQueue(this, attr, srqNum);
  }

  @Override
  public AddressHandle createAh(AhAttr attr) {
    ensureOpen();
    if (attr == null) {
      throw VerbsException.invalid("ah_attr is null");
    }
    checkAh("", attr, context);
    SoftAddressHandle ah = new SoftAddressHandle(this, attr);
    children.add(ah, "AH dlid=" + attr.dlid());
    context.memoryAccount().add(ah, MemoryComponent.AH, HcaFootprint.ah());
    return ah;
  }

  @Override
  public Context context() {
    return context;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    children.checkEmpty("PD " + handle);
    closed = true;
    context.pdClosed(this);
  }
}
