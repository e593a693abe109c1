package io.github.verbs4j.tca.peach2;

import io.github.verbs4j.fabric.topo.Peach2Topology;
import io.github.verbs4j.verbs.spi.runtime.PeerProgress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * The board's cables: what the board needs from the fabric underneath — send a write frame
 * towards the node owning an address, receive the frames addressed to this node, the clock and a
 * scheduler, and liveness. {@link FabricLink} implements it over a sim-fabric node.
 */
public interface Peach2Link extends AutoCloseable, PeerProgress {
  /** Receives frames addressed to this node, on the link thread. */
  @FunctionalInterface
  interface Receiver {
    /**
     * @param srcNode the sending node
     * @param hops links crossed
     * @param unchecked whether the sender sent it unchecked (see {@link #transmit(int, ByteBuf,
     *     boolean)}): it carries no check of its own and the fabric never corrupts it
     * @param frame the frame payload (a {@link LinkFrame}); the receiver owns and releases it
     * @param arrivalNanos the frame's modelled arrival time, or {@link Long#MIN_VALUE} (a wall
     *     clock, or unknown): the board's link hardware answers at this time, whatever the host's
     *     work has since charged to the node's clock
     */
    void onFrame(int srcNode, int hops, boolean unchecked, ByteBuf frame, long arrivalNanos);
  }

  /** Told when another node's board becomes unreachable. */
  @FunctionalInterface
  interface NodeListener {
    /** @param node the node that went down */
    void onNodeDown(int node);
  }

  /**
   * Told when this board's own cables change state: one went down, or the last one came back.
   * Called on the link thread.
   */
  @FunctionalInterface
  interface CableListener {
    /** @param up true when every cable of the board is up again */
    void onCablesChanged(boolean up);
  }

  /** @return this node's id (1-based) */
  int nodeId();

  /** @return the sub-cluster's topology */
  Peach2Topology topology();

  /** @return the node clock */
  HostClock clock();

  /** @return the link thread's scheduler */
  HostScheduler scheduler();

  /** @return the allocator for frames */
  ByteBufAllocator alloc();

  /**
   * Sends a frame to {@code dstNode}; ownership passes in every case. Frames may be lost,
   * duplicated, reordered or corrupted on the way (fault injection); the {@link DataLinkLayer}
   * above hides that.
   *
   * @param dstNode the destination node
   * @param frame the frame
   * @param unchecked true if the frame carries no check of its own (allowed only while {@link
   *     #mayCorrupt()} is false): the fabric then drops it rather than corrupt it
   * @return false if it was dropped at once (node down, link down, back-pressure limit)
   */
  boolean transmit(int dstNode, ByteBuf frame, boolean unchecked);

  /**
   * Drops a received frame that is not a link frame at all (wrong version or length, an unknown
   * type, no room for its LCRC, or from a node that is not a board of the sub-cluster), from the
   * {@link Receiver} only, in place of releasing it: the fabric counts it and reads a connection
   * that keeps sending such frames more slowly ({@code docs/security.md}). A frame whose LCRC or
   * DLLP check fails is link noise, replayed by the data link layer, and is released as usual.
   *
   * @param frame the frame (ownership passes)
   */
  default void reject(ByteBuf frame) {
    frame.release();
  }

  /**
   * Sends a frame as if it left at modelled time {@code sendTimeNanos} (a DMA channel's own
   * timeline), without moving the node's clock; {@link Long#MIN_VALUE} means now. By default the
   * time is ignored.
   *
   * @param dstNode the destination node
   * @param frame the frame
   * @param unchecked see {@link #transmit(int, ByteBuf, boolean)}
   * @param sendTimeNanos the modelled send time, or {@link Long#MIN_VALUE}
   * @return false if it was dropped at once
   */
  default boolean transmit(int dstNode, ByteBuf frame, boolean unchecked, long sendTimeNanos) {
    return transmit(dstNode, frame, unchecked);
  }

  /**
   * @return whether fault injection may corrupt frames sent from now on (once true, stays true); while
   *     false, frames may be sent unchecked
   */
  boolean mayCorrupt();

  /**
   * @return whether fault injection may lose frames sent from now on (then a reply a requester
   *     waits for is not certain to come)
   */
  default boolean mayLose() {
    return true;
  }

  /**
   * @param dstNode a node
   * @return true if frames to it are accepted without passing the high-water mark
   */
  boolean isWritable(int dstNode);

  /** @param receiver the receiver of this node's frames */
  void setReceiver(Receiver receiver);

  /**
   * @return whether the fabric's modelled timers see every node's work in hand (the in-JVM fabric:
   *     a reply that another node's timer or engine will send keeps this node's timers waiting
   *     without a claim of its own); false where a node sees only itself (netty)
   */
  default boolean seesPeers() {
    return false;
  }

  /** @param listener told when nodes go down */
  void addNodeListener(NodeListener listener);

  /**
   * Whether every cable of this board (its E, W and S links, both directions) is up: a PCIe link
   * that is down stops the board's static routes over it.
   *
   * @return true unless one of them is down; true for links that cannot go down
   */
  default boolean cablesUp() {
    return true;
  }

  /** @param listener told when the board's cables go down or come back (nothing if they cannot) */
  default void addCableListener(CableListener listener) {}

  /** @param listener a listener to remove */
  default void removeCableListener(CableListener listener) {}

  /** @return the out-of-band management path */
  ManagementPort management();

  /**
   * Runs the link's ready I/O, tasks and timers on the calling thread (a host whose application
   * calls drive the fabric, {@code verbs.fabric.progress=caller}), then {@code work}; a link whose
   * own thread does its I/O only runs {@code work}.
   *
   * @param work what to run afterwards on this thread, or null
   * @param pollIo whether to read the wire first
   * @return what {@code work} returned plus the I/O events handled
   */
  default int progress(IntSupplier work, boolean pollIo) {
    return work != null ? work.getAsInt() : 0;
  }

  /** The calling thread stops calling {@link #progress} for a while: the link's own thread takes the I/O now. */
  default void yieldProgress() {}

  /**
   * Blocks the caller in the link's I/O, as the fabric's thread, until something arrives, {@code
   * ready} is true, {@link #wakeAwaiting} is called or the timeout passes, then runs {@code work}
   * ({@code CallerProgress.awaitIo}), if the link lets callers drive its I/O.
   *
   * @param work what to run afterwards on this thread
   * @param ready checked just before blocking: true means do not block
   * @param timeoutNanos longest wait
   * @return false if it did not wait (the caller waits its own way)
   */
  default boolean awaitIo(IntSupplier work, BooleanSupplier ready, long timeoutNanos) {
    return false;
  }

  /** Ends a caller's {@link #awaitIo} (any thread; cheap when none waits). */
  default void wakeAwaiting() {}

  /** Leaves the fabric. */
  @Override
  void close();
}
