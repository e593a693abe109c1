package io.github.verbs4j.ib.engine;

import io.github.verbs4j.verbs.AtomicCap;
import io.github.verbs4j.verbs.Capability;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.DeviceCap;
import io.github.verbs4j.verbs.spi.runtime.Threading;
import java.util.EnumSet;
import java.util.Objects;

/**
 * Every limit and parameter of the simulated HCA, in one place (libfabric's {@code *_attr.c}):
 * the device limits reported by {@code queryDevice()} and enforced at object creation, the
 * engine's protocol parameters, its threading and idle strategy, and the modelled costs used when
 * the clock is modelled. Immutable; built from configuration by {@code IbConfig} or directly in
 * tests with {@link #builder()}.
 */
public final class IbParams {
  /** When the sender computes the ICRC (receivers check every packet that carries one). */
  public enum IcrcMode {
    /** Every packet carries an ICRC. */
    ON,
    /**
     * A packet carries an ICRC when the fabric may corrupt frames ({@code FabricNode.mayCorrupt()}:
     * a corruption rate or script is configured); otherwise it is marked as sent without one. TCP
     * and the in-JVM fabric already deliver intact bytes, so the CRC would only cost CPU.
     */
    AUTO,
    /** No packet carries an ICRC; frames fault injection would corrupt are lost instead. */
    OFF
  }

  /** The HCA's system image GUID; a node's GUID adds its LID. */
  public static final long GUID = 0x0200_5e1b_0000_0001L;
  /** The HCA's attributes with the default limits. */
  public static final DeviceAttr DEVICE = device(16384, 16384, 65536, 256, 16);

  /**
   * The device attributes and limits {@code queryDevice()} reports and object creation enforces
   * (the node GUID is the system image GUID until the device joins the fabric).
   */
  public final DeviceAttr device;
  /** The port's MTU in bytes (256..4096): max and active MTU, and the UD MTU. */
  public final int portMtu;

  // Engine.
  /** Which threads run the engine ({@code verbs.threading}). */
  public final Threading threading;
  /** RC window: most PSNs a requester sends beyond the last acknowledged one (default 1024; rxe 128). */
  public final int maxUnackedPsns;
  /**
   * The requester sets AckReq at the end of signaled messages, of the last one posted, and every
   * this many packets (default 256, a train; rxe 64).
   */
  public final int ackReqEvery;
  /**
   * How long a responder may hold an ACK for a packet to the same node to share a frame with (0 =
   * ACK at the end of the duty cycle, as rxe does); see {@code Responder}.
   */
  public final long ackDelayNanos;
  /** Packets a requester sends per QP per duty cycle. */
  public final int requesterBudget;
  /** READ response packets a responder sends per QP per duty cycle. */
  public final int responderBudget;
  /** Inbound packets the engine takes per duty cycle. */
  public final int receiveBudget;
  /** Capacity of the inbound packet queue. */
  public final int inboundQueue;
  /** When packets carry an ICRC (receivers check every packet that carries one). */
  public final IcrcMode icrc;
  /** Responder contexts a DCT keeps (one per active DCI); the least recently used is evicted. */
  public final int dctContexts;
  /** On a peer-down event, fail QPs connected to it after one timeout instead of retry_cnt. */
  public final boolean failFastOnPeerDown;
  /**
   * A thread that blocks for a completion waits in the fabric's I/O and runs the engine itself
   * (callers' progress only): set when the host is oversubscribed, so each message wakes one thread.
   */
  public final boolean waitInWire;
  /** Idle strategy: spins. */
  public final int idleSpins;
  /** Idle strategy: yields. */
  public final int idleYields;
  /** Idle strategy: shortest park, ns. */
  public final long idleMinParkNanos;
  /** Idle strategy: longest park, ns. */
  public final long idleMaxParkNanos;

  /** SRQ flow control when an SRQ runs dry: RNR NAK or seed-002 stop/resend, and its table. */
  public final SrqFlowParams srqFlow;

  // Model (used only when the port clock is modelled).
  /** Modelled HCA processing cost per packet sent or received, ns. */
  public final long modelPacketNanos;
  /** Modelled DMA bandwidth between host memory and HCA, MB/s (10^6 bytes/s). */
  public final long modelDmaMbPerSec;

  /**
   * @param payload a packet's payload bytes
   * @return the modelled HCA work of sending or receiving it: the per-packet cost and its DMA
   */
  public long packetWorkNanos(int payload) {
    return modelPacketNanos + payload * 1000L / modelDmaMbPerSec;
  }

  private IbParams(Builder b) {
    device = b.device;
    portMtu = b.portMtu;
    threading = b.threading;
    maxUnackedPsns = b.maxUnackedPsns;
    ackReqEvery = b.ackReqEvery;
    ackDelayNanos = b.ackDelayNanos;
    requesterBudget = b.requesterBudget;
    responderBudget = b.responderBudget;
    receiveBudget = b.receiveBudget;
    inboundQueue = b.inboundQueue;
    icrc = b.icrc;
    dctContexts = b.dctContexts;
    failFastOnPeerDown = b.failFastOnPeerDown;
    waitInWire = b.waitInWire;
    idleSpins = b.idleSpins;
    idleYields = b.idleYields;
    idleMinParkNanos = b.idleMinParkNanos;
    idleMaxParkNanos = b.idleMaxParkNanos;
    modelPacketNanos = b.modelPacketNanos;
    modelDmaMbPerSec = b.modelDmaMbPerSec;
    srqFlow = b.srqFlow;
  }

  /**
   * The HCA's attributes with the limits a user may configure (the {@code verbs.ib.max-*} keys);
   * every other limit is fixed here.
   *
   * @param maxQp max_qp
   * @param maxQpWr max_qp_wr
   * @param maxCqe max_cqe
   * @param maxInlineData max_inline_data
   * @param maxRdAtomic max_qp_rd_atom and max_qp_init_rd_atom (replay cache entries per QP)
   * @return the attributes
   */
  public static DeviceAttr device(int maxQp, int maxQpWr, int maxCqe, int maxInlineData, int maxRdAtomic) {
    return DeviceAttr.builder()
        .fwVer("verbs4j-ib 0.1.0")
        .nodeGuid(GUID)
        .sysImageGuid(GUID)
        .maxMrSize(Integer.MAX_VALUE)
        .vendorId(0x5e1b)
        .vendorPartId(1)
        .hwVer(1)
        .maxQp(maxQp)
        .maxQpWr(maxQpWr)
        .deviceCapFlags(EnumSet.of(DeviceCap.RC_RNR_NAK_GEN, DeviceCap.CURR_QP_STATE_MOD, DeviceCap.PORT_ACTIVE_EVENT,
            DeviceCap.SYS_IMAGE_GUID, DeviceCap.SRQ_RESIZE, DeviceCap.BAD_QKEY_CNTR))
        .maxSge(32)
        .maxSgeRd(32)
        .maxCq(16384)
        .maxCqe(maxCqe)
        .maxMr(65534)
        .maxPd(65536)
        .maxQpRdAtom(maxRdAtomic)
        .maxQpInitRdAtom(maxRdAtomic)
        .maxResRdAtom(maxQp * maxRdAtomic)
        .atomicCap(AtomicCap.HCA)
        .maxSrq(4096)
        .maxSrqWr(16384)
        .maxSrqSge(32)
        .maxAh(65536)
        .maxInlineData(maxInlineData)
        .numCompVectors(4)
        .capabilities(EnumSet.of(Capability.DC, Capability.SRQ_RESIZE, Capability.NATIVE_READ,
            Capability.NATIVE_ATOMIC))
        .requiresLosslessFabric(false) // RC recovers by itself: PSNs, ACK/NAK, retransmission
        .build();
  }

  /** @return a builder with the defaults */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the defaults */
  public static IbParams defaults() {
    return builder().build();
  }

  /** @return a builder starting from these values */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.device = device;
    b.portMtu = portMtu;
    b.threading = threading;
    b.maxUnackedPsns = maxUnackedPsns;
    b.ackReqEvery = ackReqEvery;
    b.ackDelayNanos = ackDelayNanos;
    b.requesterBudget = requesterBudget;
    b.responderBudget = responderBudget;
    b.receiveBudget = receiveBudget;
    b.inboundQueue = inboundQueue;
    b.icrc = icrc;
    b.dctContexts = dctContexts;
    b.failFastOnPeerDown = failFastOnPeerDown;
    b.waitInWire = waitInWire;
    b.idleSpins = idleSpins;
    b.idleYields = idleYields;
    b.idleMinParkNanos = idleMinParkNanos;
    b.idleMaxParkNanos = idleMaxParkNanos;
    b.modelPacketNanos = modelPacketNanos;
    b.modelDmaMbPerSec = modelDmaMbPerSec;
    b.srqFlow = srqFlow;
    return b;
  }

  @Override
  public String toString() {
    return "IbParams{device=" + device + ", portMtu=" + portMtu + ", threading=" + threading
        + ", maxUnackedPsns=" + maxUnackedPsns + ", ackReqEvery=" + ackReqEvery + ", ackDelayNanos=" + ackDelayNanos + ", requesterBudget="
        + requesterBudget + ", responderBudget=" + responderBudget + ", receiveBudget=" + receiveBudget
        + ", inboundQueue=" + inboundQueue + ", icrc=" + icrc + ", dctContexts=" + dctContexts
        + ", failFastOnPeerDown=" + failFastOnPeerDown + ", waitInWire=" + waitInWire + ", idle=" + idleSpins + "/" + idleYields + "/"
        + idleMinParkNanos + ".." + idleMaxParkNanos + "ns, modelPacketNanos=" + modelPacketNanos
        + ", modelDmaMbPerSec=" + modelDmaMbPerSec + ", srqFlow=" + srqFlow + '}';
  }

  /** Builds {@link IbParams}; every setter is named after its field. */
  public static final class Builder {
    private DeviceAttr device = DEVICE;
    private int portMtu = 4096;
    private int maxUnackedPsns = 1024;
    private int ackReqEvery = 256;
    private long ackDelayNanos = 10_000;
    private int requesterBudget = 256;
    private int responderBudget = 32;
    private int receiveBudget = 256;
    private int inboundQueue = 65536;
    private Threading threading = Threading.DEDICATED;
    private IcrcMode icrc = IcrcMode.AUTO;
    private int dctContexts = 1024;
    private boolean failFastOnPeerDown = true;
    private boolean waitInWire;
    private int idleSpins = 200;
    private int idleYields = 50;
    private long idleMinParkNanos = 10_000;
    private long idleMaxParkNanos = 1_000_000;
    private long modelPacketNanos = 100;
    private long modelDmaMbPerSec = 25_000;
    private SrqFlowParams srqFlow = SrqFlowParams.DEFAULT;

    private Builder() {}

    /** @param v port MTU in bytes, one of 256, 512, 1024, 2048, 4096 @return this */
    public Builder portMtu(int v) {
      if (v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096) {
        throw new IllegalArgumentException("port mtu=" + v + " is not one of 256, 512, 1024, 2048, 4096");
      }
      portMtu = v;
      return this;
    }

    /** @param v value @return this */
    public Builder threading(Threading v) {
      threading = v;
      return this;
    }

    /** @param v value @return this */
    public Builder maxUnackedPsns(int v) {
      maxUnackedPsns = v;
      return this;
    }

    /** @param v value @return this */
    public Builder ackReqEvery(int v) {
      ackReqEvery = v;
      return this;
    }

    /** @param v value @return this */
    public Builder ackDelayNanos(long v) {
      ackDelayNanos = v;
      return this;
    }

    /** @param v value @return this */
    public Builder requesterBudget(int v) {
      requesterBudget = v;
      return this;
    }

    /** @param v value @return this */
    public Builder responderBudget(int v) {
      responderBudget = v;
      return this;
    }

    /** @param v value @return this */
    public Builder receiveBudget(int v) {
      receiveBudget = v;
      return this;
    }

    /** @param v value @return this */
    public Builder inboundQueue(int v) {
      inboundQueue = v;
      return this;
    }

    /** @param v value @return this */
    public Builder icrc(IcrcMode v) {
      icrc = Objects.requireNonNull(v, "icrc");
      return this;
    }

    /** @param v value @return this */
    public Builder dctContexts(int v) {
      dctContexts = v;
      return this;
    }

    /** @param v value @return this */
    public Builder failFastOnPeerDown(boolean v) {
      failFastOnPeerDown = v;
      return this;
    }

    /** @param v value @return this */
    public Builder waitInWire(boolean v) {
      waitInWire = v;
      return this;
    }

    /** @param v value @return this */
    public Builder idleSpins(int v) {
      idleSpins = v;
      return this;
    }

    /** @param v value @return this */
    public Builder idleYields(int v) {
      idleYields = v;
      return this;
    }

    /** @param v value @return this */
    public Builder idleMinParkNanos(long v) {
      idleMinParkNanos = v;
      return this;
    }

    /** @param v value @return this */
    public Builder idleMaxParkNanos(long v) {
      idleMaxParkNanos = v;
      return this;
    }

    /** @param v value @return this */
    public Builder modelPacketNanos(long v) {
      modelPacketNanos = v;
      return this;
    }

    /** @param v value @return this */
    public Builder modelDmaMbPerSec(long v) {
      modelDmaMbPerSec = v;
      return this;
    }

    /**
     * @param v the device attributes and limits (a template: the node GUID is set when the device
     *     joins the fabric)
     * @return this
     */
    public Builder device(DeviceAttr v) {
      device = Objects.requireNonNull(v, "device");
      return this;
    }

    /** @param v value @return this */
    public Builder srqFlow(SrqFlowParams v) {
      srqFlow = Objects.requireNonNull(v, "srqFlow");
      return this;
    }

    /** @return the parameters */
    public IbParams build() {
      if (maxUnackedPsns < 1 || maxUnackedPsns >= (1 << 22)) {
        throw new IllegalArgumentException("maxUnackedPsns=" + maxUnackedPsns + " is outside [1, 2^22)");
      }
      if (device.maxMr() > 65534) {
        throw new IllegalArgumentException("max_mr=" + device.maxMr() + " exceeds the key table's 65534 entries");
      }
      return new IbParams(this);
    }
  }
}
