package io.github.verbs4j.fabric;

import io.github.verbs4j.fabric.time.FabricScheduler;
import io.github.verbs4j.fabric.time.NodeClock;
import io.github.verbs4j.fabric.topo.Topology;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Optional;

/**
 * One node of the fabric — the port a provider's device sends and receives frames through. The
 * fabric knows nothing of verbs: it moves {@link FrameHeader} + opaque payload between nodes.
 * Beyond frames a node offers capabilities, each its own small interface: the job's key-value
 * store and barriers ({@link #job()}) and, when opened for it, caller progress ({@link
 * #callerProgress()}). Both transports implement it on {@link AbstractFabricNode}, which holds the
 * frame pipeline (send checks, fault stage, delivery) once.
 *
 * <pre>{@code
 * FabricNode node = Fabric.open(FabricOptions.from(settings), registry);
 * node.setReceiver((h, payload) -> {
 *   try { handle(h.src(), h.tag(), payload); } finally { payload.release(); }
 * });
 * node.job().kvPut("qpn/" + node.rank(), bytes);                // PMI-like exchange
 * node.job().barrier("connected", Duration.ofSeconds(30));
 * ByteBuf b = node.alloc().directBuffer(64).writeLong(42);
 * node.send(peer, 0, b);                                          // the fabric releases b
 * }</pre>
 *
 * <h2>Threading</h2>
 * {@link #send} and {@link #isWritable} may be called from any thread and never block. The
 * receiver, peer, writability and link-state listeners, and {@link #scheduler()} tasks run on this node's
 * fabric thread, one at a time. {@link JobChannel#kvGet} and {@link JobChannel#barrier} block the
 * caller up to their timeout: never call them on the fabric thread.
 *
 * <h2>Buffer ownership</h2>
 * {@link #send} takes ownership of the payload in every case: the fabric releases it after it has
 * been written (netty) or hands it to the receiver (local, no copy), and releases it when it drops
 * the frame. The caller must not touch the buffer afterwards. A receiver owns each payload it gets.
 *
 * <h2>Errors</h2>
 * The data path never throws: a frame to an unknown or down node, over a down link, beyond the MTU
 * or past the back-pressure limit is dropped and counted by {@link DropReason}. Control calls throw
 * {@link FabricException} ({@link FabricTimeoutException} on timeouts). After {@link #close()},
 * {@code send} drops ({@link DropReason#CLOSED}) and control calls throw {@link FabricException}.
 */
public interface FabricNode extends AutoCloseable {
  /** @return this node's id (its LID): 1-based, at most {@link FrameHeader#MAX_NODE_ID} */
  int nodeId();

  /** @return this node's rank, 0-based ({@code nodeId() - 1}) */
  int rank();

  /** @return the number of ranks in the job (local: nodes added to the fabric so far) */
  int size();

  /** @return a snapshot of the node directory */
  NodeDirectory directory();

  /** @return the topology (routes, hop counts, links) */
  Topology topology();

  /** @return this node's clock */
  NodeClock clock();

  /** @return the scheduler that runs tasks and timers on this node's fabric thread */
  FabricScheduler scheduler();

  /** @return the allocator for payloads (pooled, direct) */
  ByteBufAllocator alloc();

  /** @return the largest payload a frame may carry ({@code verbs.link.mtu}) */
  int mtu();

  /**
   * Sends {@code payload} to {@code dstNode} with tag 0 and no flags.
   *
   * @param dstNode destination node id (may be this node)
   * @param payload the payload; ownership passes to the fabric
   * @return false if the frame was dropped at once (unknown/down node, down link, MTU,
   *     back-pressure, closed); fault-injected losses return true, as a wire would
   */
  default boolean send(int dstNode, ByteBuf payload) {
    return send(dstNode, 0, 0, payload);
  }

  /**
   * Whether fault injection may corrupt frames this node sends: a corruption rate or a scripted
   * corruption is configured (for any pair, now or before). Once true it stays true. A provider
   * that protects its payloads with a check it computes itself may skip that work while this is
   * false, and flag what it sends {@link FrameHeader#FLAG_UNCHECKED} — frames so flagged are never
   * corrupted, so a configuration change between the check and the send cannot go unnoticed.
   *
   * @return true if a frame sent from now on may be corrupted
   */
  default boolean mayCorrupt() {
    return false;
  }

  /**
   * Whether a frame this node sends may be lost by an injected fault (drop, corrupt, delay,
   * duplicate, reorder, link down): when not, a reliable provider knows that a reply to what it
   * sent is on its way, and its modelled clock need not move to a retransmission deadline.
   *
   * @return true if any fault is configured (conservatively true if unknown)
   */
  default boolean mayLose() {
    return true;
  }

  /**
   * Sends {@code payload} to {@code dstNode} with no flags.
   *
   * @param dstNode destination node id (may be this node)
   * @param tag 16 bits carried opaque in the header for the provider (virtual lane, port, class)
   * @param payload the payload; ownership passes to the fabric
   * @return false if the frame was dropped at once (see {@link #send(int, ByteBuf)})
   */
  default boolean send(int dstNode, int tag, ByteBuf payload) {
    return send(dstNode, tag, 0, payload);
  }

  /**
   * Sends {@code payload} to {@code dstNode}.
   *
   * @param dstNode destination node id (may be this node)
   * @param tag 16 bits carried opaque in the header for the provider (virtual lane, port, class)
   * @param flags header flags the fabric acts on ({@link FrameHeader#FLAG_UNCHECKED}); a bit
   *     outside {@link FrameHeader#FLAGS_DEFINED} drops the frame ({@link DropReason#BAD_FLAGS})
   * @param payload the payload; ownership passes to the fabric
   * @return false if the frame was dropped at once (see {@link #send(int, ByteBuf)})
   */
  boolean send(int dstNode, int tag, int flags, ByteBuf payload);

  /**
   * Sends {@code payload} to {@code dstNode} as if it left at modelled time {@code sendTimeNanos}
   * rather than at the node's clock: a device engine with a timeline of its own (a DMA channel)
   * sends without moving the node's clock. On a wall clock the time is ignored.
   *
   * @param dstNode destination node id (may be this node)
   * @param tag 16 bits carried opaque in the header for the provider
   * @param flags header flags (see {@link #send(int, int, int, ByteBuf)})
   * @param payload the payload; ownership passes to the fabric
   * @param sendTimeNanos the modelled send time
   * @return false if the frame was dropped at once (see {@link #send(int, ByteBuf)})
   */
  default boolean send(int dstNode, int tag, int flags, ByteBuf payload, long sendTimeNanos) {
    return send(dstNode, tag, flags, payload);
  }

  /**
   * @param dstNode destination node id
   * @return true if frames to {@code dstNode} are accepted without passing the high-water mark
   */
  boolean isWritable(int dstNode);

  /**
   * Bytes of this node's frames to {@code dstNode} that have not reached the destination's
   * fabric yet: queued in the transport's own buffers, or written to the socket and not yet
   * decoded at the other end (socket buffers, TLS, the peer's decryption and decoder; netty learns
   * how far the peer got from its receipts, {@link FrameHeader#TYPE_RECEIPT}). A reliable
   * transport above uses it so that its retransmit timer measures time on the wire, not time in
   * busy hosts' queues.
   *
   * @param dstNode destination node id
   * A shared-memory ring counts the bytes of the destination's ring, up to this node's last frame
   * there, that the destination's reader has not taken yet.
   *
   * @return the bytes; 0 when the transport hands frames on at once (in-JVM)
   */
  default long unsentBytes(int dstNode) {
    return 0;
  }

  /**
   * The receiver above has taken every frame this node handed it (any thread; cheap): a transport
   * that can, tells peers that this node was caught up now ({@link #peerCaughtUpNanos}), if
   * nothing else waits in its own queues either.
   */
  default void receiverCaughtUp() {}

  /**
   * @return whether every frame that reached this node has been handed to the receiver (nothing
   *     waits in the transport's own inbound queues); true when the transport cannot tell
   */
  default boolean receiveDrained() {
    return true;
  }

  /**
   * @param dstNode a destination node
   * @return how far the destination's reader has read what reached it (a count that only grows
   *     while its host runs that reader), or {@link Long#MAX_VALUE} if the transport cannot tell
   */
  default long peerReadMark(int dstNode) {
    return Long.MAX_VALUE;
  }

  /**
   * @param dstNode a destination node
   * @return {@link System#nanoTime()} when the destination's receiver last had taken everything
   *     that reached it ({@link #receiverCaughtUp}), or {@link Long#MAX_VALUE} if the transport
   *     cannot tell (the shared-memory rings of one host can)
   */
  default long peerCaughtUpNanos(int dstNode) {
    return Long.MAX_VALUE;
  }

  /**
   * @return how long a peer may be silent before this fabric declares it down, ns; 0 if it never
   *     does (in one JVM nothing is silent)
   */
  default long peerTimeoutNanos() {
    return 0;
  }

  /**
   * Sets the receiver of frames addressed to this node (replacing any previous one). Frames that
   * arrive while no receiver is set are dropped ({@link DropReason#NO_RECEIVER}).
   *
   * @param receiver the receiver, or null to remove it
   */
  void setReceiver(FrameReceiver receiver);

  /**
   * The receiver drops a frame that failed its checks on arrival: counts it ({@link
   * DropReason#MALFORMED}), releases it, and tells the transport, which reads a connection that
   * keeps sending such frames more slowly ({@code docs/security.md}). Call it from {@link
   * FrameReceiver#onFrame} only, in place of releasing the payload.
   *
   * @param payload the frame's payload (ownership passes)
   */
  void reject(ByteBuf payload);

  /** @param listener told when peers come up or go down */
  void addPeerListener(PeerListener listener);

  /** @param listener a listener to remove */
  void removePeerListener(PeerListener listener);

  /**
   * This node's own port: whether its links are up, a listener for when that changes, and fault
   * injection that takes them down and up ({@link NodeLinks}).
   *
   * @return the node's links
   */
  NodeLinks links();

  /** @param listener told when {@link #isWritable(int)} changes for a destination */
  void addWritabilityListener(WritabilityListener listener);

  /** @param listener a listener to remove */
  void removeWritabilityListener(WritabilityListener listener);

  /**
   * The job's key-value store and barriers (the coordinator's PMI role). Every node offers it.
   *
   * @return the job channel
   */
  JobChannel job();

  /**
   * Caller progress: present when this node lets application threads run its I/O ({@code
   * verbs.fabric.progress=caller}, netty); empty when the node's own thread makes all its progress.
   *
   * @return the capability, or empty
   */
  default Optional<CallerProgress> callerProgress() {
    return Optional.empty();
  }

  /**
   * @return the node's modelled-time steps when it runs in them (netty with {@code
   *     verbs.fabric.mode=deterministic}), else empty
   */
  default Optional<ModelledSteps> steps() {
    return Optional.empty();
  }

  /** @return this node's (netty) or fabric's (local) meters */
  FabricMetrics metrics();

  /** @return the options the node was opened with */
  FabricOptions options();

  /** @return false once closed */
  boolean isOpen();

  /**
   * Leaves the fabric: peers are told this node is down, pending frames are released, the
   * connections and threads are stopped. Idempotent.
   */
  @Override
  void close();
}
