package io.github.verbs4j.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * Device attributes and limits ({@code struct ibv_device_attr}), returned by {@link
 * Context#queryDevice()}. Every limit is one the provider enforces: asking for a larger object
 * (queue depth, SGEs, CQ entries, region length) fails with {@link Errno#EINVAL} naming the limit,
 * and creating one object more than {@code max_qp}, {@code max_cq}, {@code max_mr}, {@code max_srq}
 * or {@code max_pd} allow fails with {@link Errno#ENOMEM} naming it.
 *
 * @param fwVer firmware version string
 * @param nodeGuid node GUID
 * @param sysImageGuid system image GUID
 * @param maxMrSize largest region, bytes
 * @param pageSizeCap supported page sizes
 * @param vendorId vendor id
 * @param vendorPartId vendor part id
 * @param hwVer hardware version
 * @param maxQp QPs per device
 * @param maxQpWr WRs per work queue
 * @param deviceCapFlags {@link DeviceCap} bits
 * @param maxSge SGEs per send or receive WR
 * @param maxSgeRd SGEs per RDMA READ
 * @param maxCq CQs per device
 * @param maxCqe entries per CQ
 * @param maxMr regions per device
 * @param maxPd protection domains per device
 * @param maxQpRdAtom responder resources per QP (max_dest_rd_atomic limit)
 * @param maxQpInitRdAtom initiator depth per QP (max_rd_atomic limit)
 * @param maxResRdAtom responder resources per device
 * @param atomicCap atomic support
 * @param maxSrq SRQs per device
 * @param maxSrqWr WRs per SRQ
 * @param maxSrqSge SGEs per SRQ WR
 * @param maxAh address handles per device
 * @param maxInlineData inline bytes per send WR (verbs4j: also reported by each QP's cap)
 * @param maxPkeys P_Key table length
 * @param physPortCnt number of physical ports
 * @param numCompVectors completion vectors (valid comp_vector values are 0..n-1)
 * @param capabilities the optional features this provider implements
 * @param requiresLosslessFabric whether the device's reliable transports (RC) deliver every message
 *     only if the fabric underneath loses, corrupts, duplicates and reorders nothing (see {@link
 *     #requiresLosslessFabric()})
 */
public record DeviceAttr(String fwVer, long nodeGuid, long sysImageGuid, long maxMrSize, long pageSizeCap,
    int vendorId, int vendorPartId, int hwVer, int maxQp, int maxQpWr, int deviceCapFlags, int maxSge, int maxSgeRd,
    int maxCq, int maxCqe, int maxMr, int maxPd, int maxQpRdAtom, int maxQpInitRdAtom, int maxResRdAtom,
    AtomicCap atomicCap, int maxSrq, int maxSrqWr, int maxSrqSge, int maxAh, int maxInlineData, int maxPkeys,
    int physPortCnt, int numCompVectors, Set<Capability> capabilities, boolean requiresLosslessFabric) {

  /** Makes the capability set immutable. */
  public DeviceAttr {
    capabilities = Set.copyOf(capabilities);
  }

  /**
   * @param cap a device capability bit
   * @return whether the device reports it
   */
  public boolean has(DeviceCap cap) {
    return cap.isSet(deviceCapFlags);
  }

  /**
   * @param cap an optional feature
   * @return whether the provider implements it
   */
  public boolean has(Capability cap) {
    return capabilities.contains(cap);
  }

  /**
   * Whether the device needs a lossless fabric: true if a frame the fabric loses, corrupts,
   * duplicates or reorders (fault injection, {@code verbs.fault.*}) can break an RC connection
   * (lost or repeated messages, or {@code RETRY_EXC_ERR} while the peer is alive), false if the
   * device recovers from such faults by itself and RC stays exactly-once and in order, faults
   * costing only time. Not a libibverbs attribute: an application or test that injects faults, or
   * runs on a lossy network, checks it instead of guessing from the provider's name. UD and UC lose
   * messages with frames either way, as their transports allow.
   *
   * <p>Both providers of this project report false: {@code ib} by its transport (RC PSNs, ACK/NAK,
   * retransmission, as an HCA), {@code tca} by the PCIe data link layer of its PEACH2 links (link
   * sequence numbers, LCRC, replay), which hides losses from TCA Verbs; no configuration of either
   * needs a lossless fabric. The builder's default is true, the conservative answer for a device
   * that does not say.
   *
   * @return true if the device breaks on a lossy fabric
   */
  public boolean requiresLosslessFabric() {
    return requiresLosslessFabric;
  }

  /**
   * A builder with conservative defaults (one port, no atomics, no optional features, a lossless
   * fabric required).
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * These attributes on another node: a device's limits are declared once, its GUID is known when
   * it joins the fabric.
   *
   * @param guid the node GUID
   * @return a copy with {@code nodeGuid} set
   */
  public DeviceAttr withNodeGuid(long guid) {
    return new DeviceAttr(fwVer, guid, sysImageGuid, maxMrSize, pageSizeCap, vendorId, vendorPartId, hwVer, maxQp,
        maxQpWr, deviceCapFlags, maxSge, maxSgeRd, maxCq, maxCqe, maxMr, maxPd, maxQpRdAtom, maxQpInitRdAtom,
        maxResRdAtom, atomicCap, maxSrq, maxSrqWr, maxSrqSge, maxAh, maxInlineData, maxPkeys, physPortCnt,
        numCompVectors, capabilities, requiresLosslessFabric);
  }

  /**
   * These attributes with one more capability (a mode chosen by configuration, e.g. ib's
   * stop-resend SRQ flow control).
   *
   * @param c the capability
   * @return a copy whose {@link #capabilities()} include {@code c}
   */
  public DeviceAttr withCapability(Capability c) {
    EnumSet<Capability> more = EnumSet.noneOf(Capability.class);
    more.addAll(capabilities);
    more.add(c);
    return new DeviceAttr(fwVer, nodeGuid, sysImageGuid, maxMrSize, pageSizeCap, vendorId, vendorPartId, hwVer, maxQp,
        maxQpWr, deviceCapFlags, maxSge, maxSgeRd, maxCq, maxCqe, maxMr, maxPd, maxQpRdAtom, maxQpInitRdAtom,
        maxResRdAtom, atomicCap, maxSrq, maxSrqWr, maxSrqSge, maxAh, maxInlineData, maxPkeys, physPortCnt,
        numCompVectors, more, requiresLosslessFabric);
  }

  /** Builds {@link DeviceAttr} by name. */
  public static final class Builder {
    private String fwVer = "0.0.0";
    private long nodeGuid;
    private long sysImageGuid;
    private long maxMrSize = 1L << 32;
    private long pageSizeCap = 4096;
    private int vendorId;
    private int vendorPartId;
    private int hwVer;
    private int maxQp = 1024;
    private int maxQpWr = 1024;
    private int deviceCapFlags;
    private int maxSge = 4;
    private int maxSgeRd = 4;
    private int maxCq = 1024;
    private int maxCqe = 4096;
    private int maxMr = 1024;
    private int maxPd = 1024;
    private int maxQpRdAtom = 16;
    private int maxQpInitRdAtom = 16;
    private int maxResRdAtom = 1024;
    private AtomicCap atomicCap = AtomicCap.NONE;
    private int maxSrq = 64;
    private int maxSrqWr = 1024;
    private int maxSrqSge = 4;
    private int maxAh = 1024;
    private int maxInlineData = 256;
    private int maxPkeys = 1;
    private int physPortCnt = 1;
    private int numCompVectors = 1;
    private Set<Capability> capabilities = EnumSet.noneOf(Capability.class);
    private boolean requiresLosslessFabric = true;

    private Builder() {}

    /**
     * Sets {@code fwVer}.
     *
     * @param v the new value
     * @return this
     */
    public Builder fwVer(String v) {
      fwVer = v;
      return this;
    }

    /**
     * Sets {@code nodeGuid}.
     *
     * @param v the new value
     * @return this
     */
    public Builder nodeGuid(long v) {
      nodeGuid = v;
      return this;
    }

    /**
     * Sets {@code sysImageGuid}.
     *
     * @param v the new value
     * @return this
     */
    public Builder sysImageGuid(long v) {
      sysImageGuid = v;
      return this;
    }

    /**
     * Sets {@code maxMrSize}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxMrSize(long v) {
      maxMrSize = v;
      return this;
    }

    /**
     * Sets {@code pageSizeCap}.
     *
     * @param v the new value
     * @return this
     */
    public Builder pageSizeCap(long v) {
      pageSizeCap = v;
      return this;
    }

    /**
     * Sets {@code vendorId}.
     *
     * @param v the new value
     * @return this
     */
    public Builder vendorId(int v) {
      vendorId = v;
      return this;
    }

    /**
     * Sets {@code vendorPartId}.
     *
     * @param v the new value
     * @return this
     */
    public Builder vendorPartId(int v) {
      vendorPartId = v;
      return this;
    }

    /**
     * Sets {@code hwVer}.
     *
     * @param v the new value
     * @return this
     */
    public Builder hwVer(int v) {
      hwVer = v;
      return this;
    }

    /**
     * Sets {@code maxQp}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxQp(int v) {
      maxQp = v;
      return this;
    }

    /**
     * Sets {@code maxQpWr}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxQpWr(int v) {
      maxQpWr = v;
      return this;
    }

    /**
     * Sets {@code deviceCapFlags}.
     *
     * @param v the {@link DeviceCap} bits to report
     * @return this
     */
    public Builder deviceCapFlags(Set<DeviceCap> v) {
      deviceCapFlags = DeviceCap.mask(v);
      return this;
    }

    /**
     * Sets {@code maxSge}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxSge(int v) {
      maxSge = v;
      return this;
    }

    /**
     * Sets {@code maxSgeRd}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxSgeRd(int v) {
      maxSgeRd = v;
      return this;
    }

    /**
     * Sets {@code maxCq}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxCq(int v) {
      maxCq = v;
      return this;
    }

    /**
     * Sets {@code maxCqe}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxCqe(int v) {
      maxCqe = v;
      return this;
    }

    /**
     * Sets {@code maxMr}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxMr(int v) {
      maxMr = v;
      return this;
    }

    /**
     * Sets {@code maxPd}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxPd(int v) {
      maxPd = v;
      return this;
    }

    /**
     * Sets {@code maxQpRdAtom}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxQpRdAtom(int v) {
      maxQpRdAtom = v;
      return this;
    }

    /**
     * Sets {@code maxQpInitRdAtom}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxQpInitRdAtom(int v) {
      maxQpInitRdAtom = v;
      return this;
    }

    /**
     * Sets {@code maxResRdAtom}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxResRdAtom(int v) {
      maxResRdAtom = v;
      return this;
    }

    /**
     * Sets {@code atomicCap}.
     *
     * @param v the new value
     * @return this
     */
    public Builder atomicCap(AtomicCap v) {
      atomicCap = v;
      return this;
    }

    /**
     * Sets {@code maxSrq}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxSrq(int v) {
      maxSrq = v;
      return this;
    }

    /**
     * Sets {@code maxSrqWr}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxSrqWr(int v) {
      maxSrqWr = v;
      return this;
    }

    /**
     * Sets {@code maxSrqSge}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxSrqSge(int v) {
      maxSrqSge = v;
      return this;
    }

    /**
     * Sets {@code maxAh}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxAh(int v) {
      maxAh = v;
      return this;
    }

    /**
     * Sets {@code maxInlineData}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxInlineData(int v) {
      maxInlineData = v;
      return this;
    }

    /**
     * Sets {@code maxPkeys}.
     *
     * @param v the new value
     * @return this
     */
    public Builder maxPkeys(int v) {
      maxPkeys = v;
      return this;
    }

    /**
     * Sets {@code physPortCnt}.
     *
     * @param v the new value
     * @return this
     */
    public Builder physPortCnt(int v) {
      physPortCnt = v;
      return this;
    }

    /**
     * Sets {@code numCompVectors}.
     *
     * @param v the new value
     * @return this
     */
    public Builder numCompVectors(int v) {
      numCompVectors = v;
      return this;
    }

    /**
     * Sets {@code capabilities}.
     *
     * @param v the new value
     * @return this
     */
    public Builder capabilities(Set<Capability> v) {
      capabilities = v;
      return this;
    }

    /**
     * Sets {@code requiresLosslessFabric} (default true).
     *
     * @param v the new value
     * @return this
     */
    public Builder requiresLosslessFabric(boolean v) {
      requiresLosslessFabric = v;
      return this;
    }

    /** @return the attributes */
    public DeviceAttr build() {
      return new DeviceAttr(fwVer, nodeGuid, sysImageGuid, maxMrSize, pageSizeCap, vendorId, vendorPartId, hwVer,
          maxQp, maxQpWr, deviceCapFlags, maxSge, maxSgeRd, maxCq, maxCqe, maxMr, maxPd, maxQpRdAtom,
          maxQpInitRdAtom, maxResRdAtom, atomicCap, maxSrq, maxSrqWr, maxSrqSge, maxAh, maxInlineData, maxPkeys,
          physPortCnt, numCompVectors, capabilities, requiresLosslessFabric);
    }
  }
}
