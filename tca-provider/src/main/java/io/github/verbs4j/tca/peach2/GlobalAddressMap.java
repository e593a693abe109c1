package io.github.verbs4j.tca.peach2;

/**
 * The sub-cluster's shared PCIe address window (seed 001 §3.4): every board maps the same window;
 * node {@code n} owns the slice {@code [(n−1) << sliceBits, n << sliceBits)}, and inside its slice
 * host memory, the accelerators ("GPUs") and the board's own registers have sub-slices. Slices and
 * sub-slices are aligned, so the owner of an address is found by its upper bits alone.
 *
 * <pre>
 *  slice offset          sub-slice
 *  0                     host memory (the tcaMalloc pool)           1/2 of the slice
 *  S/2                   device 0 (GPU0, reached by GPUDirect)      1/8
 *  5S/8                  device 1 (GPU1)                            1/8
 *  3S/4                  (unused)                                   1/8
 *  7S/8                  board registers (interrupt register ...)   1/8
 * </pre>
 *
 * Seed 001 §3.2: PEACH2 accesses only GPU0 and GPU1 of a node (the GPUs on its own CPU socket),
 * hence two device sub-slices. The window of the default topology is 16 nodes × 32 GiB = 512 GiB,
 * the size of the prototype's BAR (seed 001 §3.4). Immutable.
 */
public final class GlobalAddressMap {
  /** Number of device (GPU) sub-slices per node. */
  public static final int DEVICES = 2;
  /** Offset of the interrupt register inside the register sub-slice. */
  public static final long INTERRUPT_REGISTER_OFFSET = 0;

  /** What a local offset of a slice addresses. */
  public enum Region {
    /** Host memory. */
    HOST,
    /** Device (GPU) memory. */
    DEVICE,
    /** The board's registers. */
    REGISTERS,
    /** Nothing is mapped there. */
    UNMAPPED
  }

  private final int nodes;
  private final int sliceBits;
  private final long slice;

  /**
   * @param nodes boards in the sub-cluster
   * @param sliceBits log2 of each node's slice
   */
  public GlobalAddressMap(int nodes, int sliceBits) {
    if (nodes < 1 || sliceBits < 20 || sliceBits > 56 || ((long) nodes << sliceBits) <= 0) {
      throw new IllegalArgumentException("global window: nodes=" + nodes + ", sliceBits=" + sliceBits
          + " (sliceBits in [20, 56], window below 2^63)");
    }
    this.nodes = nodes;
    this.sliceBits = sliceBits;
    this.slice = 1L << sliceBits;
  }

  /** @return boards in the sub-cluster */
  public int nodes() {
    return nodes;
  }

  /** @return log2 of the slice size */
  public int sliceBits() {
    return sliceBits;
  }

  /** @return bytes per node slice */
  public long sliceSize() {
    return slice;
  }

  /** @return bytes of the whole window */
  public long windowSize() {
    return slice * nodes;
  }

  private void check(int node) {
    if (node < 1 || node > nodes) {
      throw new IllegalArgumentException("node=" + node + " is outside [1, " + nodes + "] of the global window");
    }
  }

  /**
   * @param node a node
   * @return the first global address of its slice
   */
  public long nodeBase(int node) {
    check(node);
    return (long) (node - 1) << sliceBits;
  }

  /**
   * @param address a global address
   * @return the node owning it, or 0 if outside the window
   */
  public int nodeOf(long address) {
    if (address < 0 || address >= windowSize()) {
      return 0;
    }
    return (int) (address >>> sliceBits) + 1;
  }

  /**
   * The offset subtraction a receiving board performs before handing a write to its host (seed 001
   * §3.4: "到着したパケットヘッダのアドレスを減算してからホストに送出").
   *
   * @param node the receiving node
   * @param address a global address in its slice
   * @return the local offset
   */
  public long localOffset(int node, long address) {
    return address - nodeBase(node);
  }

  /** @return bytes of the host sub-slice */
  public long hostSize() {
    return slice / 2;
  }

  /**
   * @param node a node
   * @return global address of its host memory sub-slice
   */
  public long hostBase(int node) {
    return nodeBase(node);
  }

  /** @return bytes of one device sub-slice */
  public long deviceSize() {
    return slice / 8;
  }

  /**
   * @param node a node
   * @param device 0 or 1
   * @return global address of that device's sub-slice
   */
  public long deviceBase(int node, int device) {
    if (device < 0 || device >= DEVICES) {
      throw new IllegalArgumentException("device=" + device + " is outside [0, " + DEVICES + ")");
    }
    return nodeBase(node) + deviceLocalBase(device);
  }

  /**
   * @param device 0 or 1
   * @return the local offset of the device's sub-slice
   */
  public long deviceLocalBase(int device) {
    return slice / 2 + device * (slice / 8);
  }

  /** @return the local offset of the register sub-slice */
  public long registerLocalBase() {
    return slice - slice / 8;
  }

  /**
   * @param node a node
   * @return the global address of its interrupt register
   */
  public long interruptRegister(int node) {
    return nodeBase(node) + registerLocalBase() + INTERRUPT_REGISTER_OFFSET;
  }

  /**
   * @param localOffset an offset inside a slice
   * @return what it addresses
   */
  public Region region(long localOffset) {
    if (localOffset < 0 || localOffset >= slice) {
      return Region.UNMAPPED;
    }
    if (localOffset < slice / 2) {
      return Region.HOST;
    }
    if (localOffset < deviceLocalBase(DEVICES - 1) + deviceSize()) {
      return Region.DEVICE;
    }
    if (localOffset >= registerLocalBase()) {
      return Region.REGISTERS;
    }
    return Region.UNMAPPED;
  }

  /**
   * @param localOffset an offset in a device sub-slice
   * @return the device index
   */
  public int deviceOf(long localOffset) {
    return (int) ((localOffset - slice / 2) / deviceSize());
  }

  @Override
  public String toString() {
    return "GlobalAddressMap{nodes=" + nodes + ", slice=2^" + sliceBits + ", window=" + windowSize() + " bytes}";
  }
}
