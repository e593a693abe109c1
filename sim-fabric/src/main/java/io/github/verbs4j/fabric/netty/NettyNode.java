package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.AbstractFabricNode;
import io.github.verbs4j.fabric.CallerProgress;
import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.ModelledSteps;
import io.github.verbs4j.fabric.NodeDirectory;
import io.github.verbs4j.fabric.coord.Coordinator;
import io.github.verbs4j.fabric.coord.CoordinatorClient;
import io.github.verbs4j.fabric.shm.ShmLinks;
import io.github.verbs4j.fabric.fault.FaultInjector;
import io.github.verbs4j.fabric.time.FabricScheduler;
import io.github.verbs4j.fabric.time.LinkModel;
import io.github.verbs4j.fabric.time.LinkParams;
import io.github.verbs4j.fabric.time.ModelledTimers;
import io.github.verbs4j.fabric.time.Quiescence;
import io.github.verbs4j.fabric.topo.Route;
import io.github.verbs4j.fabric.topo.Topology;
import io.github.verbs4j.fabric.topo.TopologySpec;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.channel.unix.DomainSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fabric node in its own process, exchanging frames with its peers over Netty: TCP, or Unix
 * domain sockets to peers on the same host. Opened by {@link io.github.verbs4j.fabric.Fabric#open};
 * see {@link FabricNode} for the contract. The send checks, the fault stage and delivery are
 * {@link AbstractFabricNode}'s; this class is the netty transport, in five parts:
 *
 * <ul>
 *   <li>this class: the event loop (one thread per node, or {@link SharedIoEventLoop} for caller
 *       progress), what a frame does when it is transmitted (to itself: the event loop delivers
 *       it; to a peer: {@link TransitRouter} picks the connection, {@link Outbox} writes it) and
 *       what arrives on a connection (a data frame is delivered; a transit frame goes to the
 *       router);
 *   <li>{@link NettyMembership}: the coordinator, the join, the connections, peer liveness and the
 *       job's key-value store;
 *   <li>{@link Outbox}: encoding and writing this node's frames, queued from other threads and
 *       flushed once per batch, with back-pressure;
 *   <li>{@link TransitRouter}: which process models each link of a route, and frames passing
 *       through;
 *   <li>{@link NodeShm}: the shared-memory rings to peers on this host ({@code verbs.fabric.shm}):
 *       linking them, frames out of this node's ring, doorbells, a full ring watched for room.
 * </ul>
 *
 * <p>Connections: each node listens, publishes its addresses through the coordinator, and opens
 * one outgoing connection to every peer once all ranks have joined; frames to a peer travel on that
 * connection, so they arrive in send order. The event loop does all I/O and runs the receiver,
 * listeners and scheduler tasks. Faults are applied at the sender.
 */
public final class NettyNode extends AbstractFabricNode<Peer> {
  private static final Logger LOG = LoggerFactory.getLogger(NettyNode.class);
  /** Quiet watches in a row (ms) before a modelled timer is taken for the next event. */
  private static final int QUIET_LOOKS = 10;

  private final Transports transports;
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final Optional<CallerProgress> callerProgress; // verbs.fabric.progress=caller: the shared loop
  private final FabricScheduler scheduler;
  private final NodeSteps steps; // verbs.fabric.mode=deterministic, else null
  private final NettyMembership members;
  private final Outbox outbox;
  private TransitRouter router; // set by start, before open returns
  private final NodeShm shmPart;
  private volatile ShmLinks shm; // verbs.fabric.shm: rings to peers on this host; set by start

  private NettyNode(FabricOptions options, MeterRegistry registry) {
    super(options, new FabricMetrics(registry, "netty-rank-" + options.rank() + "-" + ProcessHandle.current().pid()),
        new FaultInjector(options));
    this.transports = Transports.choose(options.get(FabricOptions.IO));
    String loopName = "verbs4j-fabric-rank" + options.rank();
    if ("caller".equals(options.get(FabricOptions.PROGRESS)) && !options.deterministic()) {
      SharedIoEventLoop shared = new SharedIoEventLoop(transports.ioHandlerFactory(), loopName,
          TimeUnit.MICROSECONDS.toNanos(options.getLong(FabricOptions.PROGRESS_LEASE_US)));
      this.group = shared;
      this.callerProgress = Optional.of(shared);
      metrics().bindProgress(shared.takeovers(), shared.callerMisses());
    } else {
      this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(loopName, true), transports.ioHandlerFactory());
      this.callerProgress = Optional.empty();
    }
    this.loop = group.next();
    this.steps = options.deterministic() ? new NodeSteps(clock, this::coordinatorClient, (h, p) -> deliver(h, p),
        (h, f, at) -> router.onTransit(h, f, at), this::runTask, loopScheduler(loop)) : null;
    this.scheduler = steps != null ? steps.scheduler() : loopScheduler(loop);
    if (clock.isModelled() && steps == null) {
      // A netty node sees only itself (its clock, its engine, its outbox), not the peers' work in
      // hand: it waits for QUIET_LOOKS quiet looks before a timer moves its clock.
      useTimers(new ModelledTimers(clock, loop, new Quiescence() {
        @Override
        public long activity() {
          return clock.activity();
        }

        @Override
        public boolean idleUntil(long deadline) {
          return !clock.busy() && outbox.idle();
        }
      }, QUIET_LOOKS, this::runTask));
    }
    this.members = new NettyMembership(this, options, transports, group);
    this.outbox = new Outbox(loop, metrics, this::isOpen, !clock.isModelled(), (int) options.getLong(FabricOptions.HIGH_WATER),
        options.getLong(FabricOptions.MAX_PENDING));
    this.shmPart = new NodeShm(this, options, metrics, loop, members);
    metrics.bindFaults(faults);
  }

  /**
   * Opens a node: see {@link io.github.verbs4j.fabric.Fabric#open}.
   *
   * @param options options with {@code verbs.fabric=netty}
   * @param registry where meters go
   * @return the joined, connected node
   * @throws FabricException if it cannot join; {@link FabricTimeoutException} after {@code
   *     verbs.fabric.join-timeout-ms}
   */
  public static NettyNode open(FabricOptions options, MeterRegistry registry) {
    if (!"netty".equals(options.fabric())) {
      throw new IllegalArgumentException("verbs.fabric=" + options.fabric() + ": NettyNode needs verbs.fabric=netty");
    }
    NettyNode n = new NettyNode(options, registry);
    try {
      n.start();
      return n;
    } catch (RuntimeException e) {
      n.close();
      throw e;
    }
  }

  private void start() {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(options.getLong(FabricOptions.JOIN_TIMEOUT_MS));
    CoordinatorClient.Welcome w = members.hello(deadline);
    Topology topology = TopologySpec.parse(w.topology()).build();
    if (options.size() > topology.maxNodes()) {
      throw new IllegalArgumentException("verbs.size=" + options.size() + " exceeds the " + topology.maxNodes()
          + " nodes of verbs.topology=" + topology.spec());
    }
    LinkModel model = new LinkModel(LinkParams.from(options), 64);
    outbox.attach(model, w.nodeId(), options.size());
    if (steps != null) {
      outbox.modelAtSend();
    }
    router = new TransitRouter(topology, model, metrics, members, outbox, w.nodeId(), options.size());
    attach(w.nodeId(), topology, model, options.size());
    members.connect(deadline);
    linkShm(deadline);
    LOG.debug("node {} (rank {}/{}) connected over {} to {} peers", nodeId(), options.rank(), options.size(),
        transports.name(), options.size() - 1);
  }

  /** {@code verbs.fabric.shm}: this node's ring, then the rings of the peers on its host. */
  private void linkShm(long deadline) {
    ShmLinks s = shmPart.open(group);
    shm = s; // before the peers': a peer that links first may ring the doorbell
    if (s != null) {
      shmPart.attachPeers(deadline);
    }
  }

  /** Fabric thread: a well-formed frame out of this node's ring. */
  void receiveFromRing(ByteBuf frame) {
    header.decode(frame, 0);
    receive(frame, 0);
  }

  /** Fabric thread: a frame whose header is decoded into {@link #header}, from a socket or a ring. */
  private void receive(ByteBuf frame, int r) {
    if (receivedOverDownLink(frame)) {
      return;
    }
    if (header.type() == FrameHeader.TYPE_TRANSIT) {
      if (steps != null) {
        steps.holdTransit(header, frame, r);
      } else if (router.onTransit(header, frame, r)) {
        deliver(frame);
      }
      return;
    }
    frame.skipBytes(FrameHeader.LENGTH);
    deliverOrHold(frame, true);
  }

  private CoordinatorClient coordinatorClient() {
    return members.client();
  }

  /** Delivers a frame whose header is in {@link #header}, or holds it for its step. */
  private void deliverOrHold(ByteBuf frame, boolean fromPeer) {
    if (steps != null) {
      steps.hold(header, frame, fromPeer);
    } else {
      deliver(frame);
    }
  }

  /**
   * A connection this node accepted: the handshake first; once the peer has proved the job secret,
   * frames from that peer.
   */
  void initInbound(Channel ch) {
    SslContext tls = members.tlsServer();
    if (tls != null && !(ch instanceof DomainSocketChannel)) {
      ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
    }
    ch.pipeline().addLast("auth", new AuthHandlers.Server(members.secret(), options.rank() + 1, options.size(), metrics,
        peer -> {
          FrameDecoder decoder = new FrameDecoder(options.mtu(), metrics, this::nodeId, FrameDecoder.FRAMES_PER_TURN);
          ReceiveTuning.apply(ch, decoder, FrameHeader.LENGTH + options.mtu());
          ch.pipeline().addLast("decoder", decoder);
          ch.pipeline().addLast("dispatch", new Dispatcher(peer, decoder));
        }));
  }

  /**
   * This node's connection to a peer: the handshake, then back-pressure events and errors.
   *
   * @return completed once the peer has proved the job secret
   */
  io.netty.channel.ChannelFuture initOutbound(Channel ch, int peer) {
    io.netty.channel.ChannelPromise authenticated = ch.newPromise();
    SslContext tls = members.tlsClient();
    if (tls != null && !(ch instanceof DomainSocketChannel)) {
      ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
    }
    ch.pipeline().addLast("auth", new AuthHandlers.Client(members.secret(), options.rank() + 1, peer, authenticated));
    ch.pipeline().addLast("outbound", new OutboundHandler(this, peer));
    return authenticated;
  }

  /** A peer went down (membership): its held frame is dropped and the listeners hear it, on the loop. */
  void peerDown(int id) {
    ShmLinks s = shm;
    if (s != null) {
      s.peerDown(id);
    }
    loop.execute(() -> {
      dropHeld(id, DropReason.NODE_DOWN);
      notifyPeer(id, false);
    });
  }

  /**
   * Receives frames on an accepted connection from one authenticated peer. A frame's source is
   * that peer, or a node whose frames the peer may relay (it is on the frame's route): anything
   * else is dropped as {@link DropReason#SPOOFED_SOURCE}. Tells the peer how far it has decoded
   * (receipts, see {@link Outbox#unsent}).
   */
  private final class Dispatcher extends ChannelInboundHandlerAdapter {
    private final int peer;
    private final FrameDecoder decoder;
    private long receipted; // decoded bytes the last receipt named
    private long receiptNanos;

    Dispatcher(int peer, FrameDecoder decoder) {
      this.peer = peer;
      this.decoder = decoder;
    }

    /**
     * Sends a receipt on this node's connection to the peer once {@link Outbox#RECEIPT_BYTES}
     * more were decoded: at the end of a read, or in the middle of a long one (a slow decryption
     * of a large backlog) at most every {@link Outbox#RECEIPT_INTERVAL_NANOS}.
     */
    private void receipt(boolean endOfRead) {
      long c = decoder.consumed();
      if (c - receipted < Outbox.RECEIPT_BYTES) {
        return;
      }
      long now = System.nanoTime();
      if (!endOfRead && now - receiptNanos < Outbox.RECEIPT_INTERVAL_NANOS) {
        return;
      }
      Peer p = members.peer(peer);
      Channel ch = p == null ? null : p.channel;
      if (ch == null || !ch.isActive()) {
        return;
      }
      receipted = c;
      receiptNanos = now;
      ByteBuf r = ch.alloc().directBuffer(FrameHeader.LENGTH);
      FrameHeader.write(r, FrameHeader.TYPE_RECEIPT, 0, 0, nodeId(), peer, 0, 0, c, c);
      ch.writeAndFlush(r, ch.voidPromise());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      receipt(true);
      ctx.fireChannelReadComplete();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      int r = frame.readerIndex();
      header.decode(frame, r);
      if (header.src() != peer && (router == null || !router.mayRelay(peer, header.src(), header.dst()))) {
        metrics.drop(DropReason.SPOOFED_SOURCE, header.length());
        frame.release();
        decoder.rejected();
        return;
      }
      if (header.type() == FrameHeader.TYPE_DOORBELL) {
        frame.release();
        ShmLinks s = shm;
        if (s != null) {
          s.doorbell();
        }
        return;
      }
      if (header.type() == FrameHeader.TYPE_RECEIPT) {
        frame.release();
        // Counts of another connection from that peer (a member's extra one) may mix in: keep
        // the largest not beyond what was written, which can hide bytes on their way, never invent them.
        Peer p = members.peer(peer);
        long n = header.sendTimeNanos();
        if (p != null && n > p.receipted && n <= p.written) {
          p.receipted = n;
        }
        return;
      }
      long rejected = rejects();
      receive(frame, r);
      if (rejects() != rejected) {
        decoder.rejected();
      }
      receipt(false);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("node {}: inbound connection {} failed: {}", nodeId(), ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    }
  }

  /** @return the connected process of node {@code id}, or null */
  Peer peer(int id) {
    return members.peer(id);
  }

  /**
   * Event loop: this node's connection to {@code peer} became writable or not; frames to every
   * destination whose next process is that peer share it.
   */
  void connectionWritability(int peer, boolean writable) {
    for (int dst = 1; dst <= options.size(); dst++) {
      if (dst != nodeId() && router.via(dst) == peer) {
        notifyWritability(dst, writable);
      }
    }
  }

  @Override
  protected Peer destination(int dstNode) {
    return members.peer(dstNode);
  }

  @Override
  protected boolean isUp(Peer p) {
    return p.up; // this node's own entry never goes down
  }

  @Override
  protected boolean doTransmit(Peer p, Route route, int tag, int flags, ByteBuf payload, long sendTime, long delay) {
    if (route.dst() == nodeId()) {
      // To self: no socket; delivered on the event loop like any frame.
      long arrival = sendTime + delay;
      int len = payload.readableBytes();
      metrics.sent(len);
      if (steps != null) { // held now, so the step that follows this send sees it
        steps.hold(new FrameHeader().set(flags, 0, route.dst(), route.dst(), tag, len, sendTime, arrival), payload, false);
        return true;
      }
      loop.execute(() -> {
        header.set(flags, 0, route.dst(), route.dst(), tag, len, sendTime, arrival);
        deliver(payload);
      });
      return true;
    }
    boolean sent = transmitToPeer(route, tag, flags, payload, sendTime, delay);
    if (sent && steps != null) {
      steps.sent();
    }
    return sent;
  }

  private boolean transmitToPeer(Route route, int tag, int flags, ByteBuf payload, long sendTime, long delay) {
    int done = router.ownedHops(route, 0);
    int next = router.nextNode(route, done);
    ShmLinks s = shm;
    int len = payload.readableBytes();
    // A frame held back in wall time by the delay fault, or larger than the ring takes, keeps the socket.
    if (s != null && s.fits(next, len) && (delay == 0 || clock.isModelled())) {
      long time = model().advance(route, 0, done, sendTime + delay, len);
      int type = done == route.hops() ? FrameHeader.TYPE_DATA : FrameHeader.TYPE_TRANSIT;
      switch (s.send(next, type, flags, done, nodeId(), route.dst(), tag, payload, sendTime, time)) {
        case SENT -> {
          metrics.sent(len);
          payload.release();
          return true;
        }
        case SENT_WAKE -> {
          metrics.sent(len);
          payload.release();
          shmPart.ringDoorbell(next);
          return true;
        }
        case FULL -> {
          return drop(DropReason.BACKPRESSURE, payload);
        }
        default -> {
          return drop(DropReason.NODE_DOWN, payload); // went down since fits()
        }
      }
    }
    return outbox.send(members.peer(router.nextNode(route, done)), route, done, tag, flags, payload, sendTime, delay);
  }

  /** The reorder window is wall time on a netty node (the event loop's timer). */
  @Override
  protected void scheduleReorderRelease(long nanos, Runnable release) {
    loop.schedule(release, nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public long unsentBytes(int dstNode) {
    Peer v = via(dstNode);
    if (v == null) {
      return 0;
    }
    ShmLinks s = shm;
    // A frame in a shared-memory ring is at the peer once its reader took it; larger frames take the socket.
    return (s != null && s.linked(v.id) ? s.unread(v.id) : 0) + outbox.unsent(v);
  }

  /** @return the peer whose process frames to {@code dstNode} go to first, or null (self, down, closed) */
  private Peer via(int dstNode) {
    Peer p = members.peer(dstNode);
    if (!isOpen() || p == null || dstNode == nodeId() || !p.up) {
      return null;
    }
    return members.peer(router.via(dstNode));
  }

  @Override
  public void receiverCaughtUp() {
    ShmLinks s = shm;
    if (s != null) {
      s.caughtUp();
    }
  }

  @Override
  public boolean receiveDrained() {
    ShmLinks s = shm;
    return s == null || s.drained();
  }

  @Override
  public long peerTimeoutNanos() {
    return options.getLong(FabricOptions.PEER_TIMEOUT_MS) * 1_000_000L;
  }

  @Override
  public long peerReadMark(int dstNode) {
    ShmLinks s = shm;
    Peer v = via(dstNode);
    return s == null || v == null ? Long.MAX_VALUE : s.peerRead(v.id);
  }

  @Override
  public long peerCaughtUpNanos(int dstNode) {
    ShmLinks s = shm;
    Peer v = via(dstNode);
    return s == null || v == null ? Long.MAX_VALUE : s.peerCaughtUp(v.id);
  }

  @Override
  public boolean isWritable(int dstNode) {
    Peer p = members.peer(dstNode);
    if (!isOpen() || p == null) {
      return false;
    }
    if (dstNode == nodeId()) {
      return true;
    }
    if (!p.up) {
      return false;
    }
    Peer v = members.peer(router.via(dstNode));
    ShmLinks s = shm;
    if (s != null && s.linked(v.id)) {
      boolean w = s.isWritable(v.id);
      if (!w) {
        shmPart.watch(v.id, hasWritabilityListeners());
      }
      return v.up && w;
    }
    Channel ch = v.channel;
    return v.up && ch != null && ch.isWritable();
  }

  @Override
  public Optional<CallerProgress> callerProgress() {
    return callerProgress;
  }

  @Override
  public Optional<ModelledSteps> steps() {
    return Optional.ofNullable(steps);
  }

  @Override
  public JobChannel job() {
    return members.job();
  }

  @Override
  public int rank() {
    return options.rank();
  }

  @Override
  public int size() {
    return options.size();
  }

  @Override
  public NodeDirectory directory() {
    return members.directory();
  }

  @Override
  public FabricScheduler scheduler() {
    return scheduler;
  }

  /** @return the fault injector of this node's outgoing frames */
  public FaultInjector faults() {
    return faults;
  }

  /**
   * @return this node's link model: exact for the links this process models (its own outgoing
   *     links; a switch's link to it), which is where their queueing statistics are
   */
  public LinkModel linkModel() {
    return model();
  }

  /** @return the coordinator this process runs, or null if it runs none */
  public Coordinator embeddedCoordinator() {
    return members.embedded();
  }

  /** @return {@code epoll} or {@code nio} */
  public String ioName() {
    return transports.name();
  }

  /**
   * @param dstNode a peer
   * @return {@code shm} (its ring), or {@code tcp} or {@code uds}: the socket family of the
   *     connection to it, or {@code none}
   */
  public String transportTo(int dstNode) {
    ShmLinks s = shm;
    return s != null && s.linked(dstNode) ? "shm" : members.transportTo(dstNode);
  }

  @Override
  public void close() {
    if (!markClosed()) {
      return;
    }
    RuntimeException failure = members.closeClient();
    members.closeChannels();
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    if (!loop.inEventLoop()) {
      group.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
      outbox.close();
    }
    ShmLinks s = shm;
    if (s != null) {
      s.close();
    }
    if (steps != null) {
      steps.close();
    }
    failure = members.closeRest(failure);
    metrics.close();
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "NettyNode{id=" + nodeId() + ", rank=" + options.rank() + "/" + options.size() + ", io=" + transports.name()
        + ", peers=" + Arrays.toString(Arrays.stream(members.peers()).filter(Objects::nonNull).mapToInt(p -> p.id).toArray())
        + "}";
  }
}
