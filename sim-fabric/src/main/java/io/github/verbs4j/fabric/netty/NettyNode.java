package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.DropReason;
import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricMetrics;
import io.github.verbs4j.fabric.FabricNode;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.FrameHeader;
import io.github.verbs4j.fabric.FrameReceiver;
import io.github.verbs4j.fabric.NodeDirectory;
import io.github.verbs4j.fabric.NodeLinks;
import io.github.verbs4j.fabric.NodeInfo;
import io.github.verbs4j.fabric.PeerListener;
import io.github.verbs4j.fabric.WritabilityListener;
import io.github.verbs4j.fabric.coord.Coordinator;
import io.github.verbs4j.fabric.coord.CoordinatorClient;
import io.github.verbs4j.fabric.fault.FaultAction;
import io.github.verbs4j.fabric.fault.FaultInjector;
import io.github.verbs4j.fabric.fault.NodeLinkState;
import io.github.verbs4j.fabric.time.FabricScheduler;
import io.github.verbs4j.fabric.time.FabricTimer;
import io.github.verbs4j.fabric.time.LinkModel;
import io.github.verbs4j.fabric.time.LinkParams;
import io.github.verbs4j.fabric.time.ModelledTimers;
import io.github.verbs4j.fabric.time.NodeClock;
import io.github.verbs4j.fabric.topo.Link;
import io.github.verbs4j.fabric.topo.Route;
import io.github.verbs4j.fabric.topo.Topology;
import io.github.verbs4j.fabric.topo.TopologySpec;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fabric node in its own process, exchanging frames with its peers over Netty: TCP, or Unix
 * domain sockets to peers on the same host. Opened by {@link io.github.verbs4j.fabric.Fabric#open};
 * see {@link FabricNode} for the contract.
 *
 * <p>Connections: each node listens (TCP, plus a Unix socket file when {@code
 * verbs.fabric.transport} allows), publishes its addresses through the coordinator, and opens one
 * outgoing connection to every peer once all ranks have joined; frames to a peer travel on that
 * connection, so they arrive in send order. One event-loop thread per node does all I/O and runs
 * the receiver, listeners and scheduler tasks.
 *
 * <p>Modelled time: every directed link is modelled by the one process that sees all of its
 * traffic — the process of the node that transmits on it, or, for a switch's link to a node, that
 * node's process. A frame crosses its route in pieces: each process runs the links it models
 * through its {@link LinkModel} and passes the frame on, as a {@link FrameHeader#TYPE_TRANSIT}
 * frame carrying the head's modelled time, to the process of the next link's owner (store and
 * forward through intermediate PEACH2 boards, as the ring does) or finally to the destination.
 * So frames of different processes that share a link are serialised on it. Links of boards that
 * have no live process are modelled by the process holding the frame. Faults are applied at the
 * sender.
 */
public final class NettyNode implements FabricNode {
  private static final Logger LOG = LoggerFactory.getLogger(NettyNode.class);
  private static final int COPY_LIMIT = 8192;
  private static final int OUTBOX = 16384;
  /** The user-defined writability bit the outbox clears when it holds too many bytes for a peer. */
  private static final int OUTBOX_WRITABILITY_BIT = 1;

  private final FabricOptions options;
  private final FabricMetrics metrics;
  private final Transports transports;
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final SharedIoEventLoop shared; // verbs.fabric.progress=caller, else null
  private final NodeClock clock;
  private final FaultInjector faults;
  private NodeLinkState links; // set by start, before open returns
  private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
  private final FrameHeader header = new FrameHeader();
  private final CopyOnWriteArrayList<PeerListener> peerListeners = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<WritabilityListener> writabilityListeners = new CopyOnWriteArrayList<>();
  private final Scheduler scheduler = new Scheduler();
  private final ModelledTimers timers; // null with wall clocks
  private final List<Channel> servers = new ArrayList<>();
  private final int highWater;
  private final long maxPending;
  private final String host;
  private Path udsPath;
  private Coordinator embedded;
  private CoordinatorClient client;
  private Topology topology;
  private LinkModel model;
  private int[] linkOwner = new int[0];
  private volatile int nodeId;
  private volatile NodeDirectory directory = new NodeDirectory(List.of());
  private volatile Peer[] peers = new Peer[0];
  private volatile FrameReceiver receiver;
  private volatile boolean open = true;
  private final CountDownLatch allJoined = new CountDownLatch(1);
  // Frames sent from threads other than the event loop wait here (unencoded) for the loop, which
  // encodes and writes them all and flushes each connection once: Netty's pooled buffers and write
  // tasks are recycled only on Netty's own threads (Netty 4.2), and one flush per batch saves
  // system calls when streaming.
  private final Queue<Outgoing> outbox = PlatformDependent.newFixedMpscQueue(OUTBOX);
  private final Queue<Outgoing> spare = PlatformDependent.newFixedMpmcQueue(OUTBOX);
  private final AtomicInteger drainScheduled = new AtomicInteger();
  private final Runnable drainTask = this::drainOutbox;
  private Peer[] touched = new Peer[0]; // event loop only
  private int frameHighWater = OUTBOX / 2; // outbox frames per connection that make it unwritable

  /** A frame waiting in the outbox; reused. */
  private static final class Outgoing {
    Peer dst;
    Peer via;
    Route route;
    int done;
    int tag;
    ByteBuf payload;
    long sendTime;
    long delay;
    long bytes;
  }

  /** The outgoing side of one peer. */
  private static final class Peer {
    final int id;
    volatile Channel channel;
    volatile boolean up = true;
    volatile boolean lastWritable = true;
    final AtomicLong queued = new AtomicLong(); // frame bytes in the outbox for this connection
    final AtomicInteger queuedFrames = new AtomicInteger(); // frames in the outbox for it
    volatile boolean outboxUnwritable; // changed only under outboxLock, with the channel's bit
    final Object outboxLock = new Object();
    boolean needsFlush; // event loop only
    ByteBuf heldFrame; // reorder fault: frame held back, guarded by this
    Peer heldVia; // the process the held frame goes to next
    ScheduledFuture<?> heldTimer;

    Peer(int id) {
      this.id = id;
    }
  }

  private NettyNode(FabricOptions options, MeterRegistry registry) {
    this.options = options;
    this.transports = Transports.choose(options.get(FabricOptions.IO));
    this.metrics = new FabricMetrics(registry, "netty-rank-" + options.rank() + "-" + ProcessHandle.current().pid());
    String loopName = "verbs4j-fabric-rank" + options.rank();
    if ("caller".equals(options.get(FabricOptions.PROGRESS))) {
      this.shared = new SharedIoEventLoop(transports.ioHandlerFactory(), loopName,
          TimeUnit.MICROSECONDS.toNanos(options.getLong(FabricOptions.PROGRESS_LEASE_US)));
      this.group = shared;
    } else {
      this.shared = null;
      this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(loopName, true), transports.ioHandlerFactory());
    }
    this.loop = group.next();
    this.clock = options.modelledTime() ? NodeClock.modelled() : NodeClock.wall();
    this.timers = clock.isModelled()
        ? new ModelledTimers(clock, loop, options.getLong(FabricOptions.TIMER_WALL_MIN_US) * 1000, scheduler::run) : null;
    this.faults = new FaultInjector(options);
    this.highWater = (int) options.getLong(FabricOptions.HIGH_WATER);
    this.maxPending = options.getLong(FabricOptions.MAX_PENDING);
    this.host = hostName();
    metrics.bindFaults(faults);
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      String h = System.getenv("HOSTNAME");
      return h != null ? h : "localhost";
    }
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
    Duration joinTimeout = Duration.ofMillis(options.getLong(FabricOptions.JOIN_TIMEOUT_MS));
    long deadline = System.nanoTime() + joinTimeout.toNanos();
    String coordSpec = options.get(FabricOptions.COORDINATOR);
    FabricOptions.CoordinatorAddress ca;
    if (coordSpec.isEmpty()) {
      if (options.size() != 1) {
        throw new IllegalArgumentException("verbs.coordinator is empty but verbs.size=" + options.size()
            + ": set verbs.coordinator=host:port or embedded:[host:]port so the ranks can find each other");
      }
      ca = new FabricOptions.CoordinatorAddress(true, "127.0.0.1", 0);
    } else {
      ca = FabricOptions.CoordinatorAddress.parse(coordSpec);
    }
    int coordPort = ca.port();
    if (ca.embedded() && options.rank() == 0) {
      embedded = Coordinator.start(ca.host(), ca.port(), Duration.ofMillis(options.getLong(FabricOptions.PEER_TIMEOUT_MS)));
      coordPort = embedded.port();
    } else if (ca.port() == 0) {
      throw new IllegalArgumentException("verbs.coordinator=" + coordSpec + ": rank " + options.rank()
          + " cannot find an embedded coordinator on an ephemeral port; give a port");
    }
    String address = listen();
    client = CoordinatorClient.connect(ca.host(), coordPort, left(deadline),
        Duration.ofMillis(options.getLong(FabricOptions.HEARTBEAT_MS)), new Events());
    CoordinatorClient.Welcome w = client.hello(options.rank(), options.size(), address, host,
        TopologySpec.parse(options.get(FabricOptions.TOPOLOGY)).toString(), left(deadline));
    topology = TopologySpec.parse(w.topology()).build();
    if (options.size() > topology.maxNodes()) {
      throw new IllegalArgumentException("verbs.size=" + options.size() + " exceeds the " + topology.maxNodes()
          + " nodes of verbs.topology=" + topology.spec());
    }
    model = new LinkModel(LinkParams.from(options), 64);
    List<Link> links = topology.links(options.size());
    int maxLink = 0;
    for (Link l : links) {
      maxLink = Math.max(maxLink, l.id());
    }
    int[] owners = new int[maxLink + 1];
    for (Link l : links) {
      // The transmitter sees all of a link's traffic; a switch (node 0) has no process, but all
      // traffic on its link to a node goes to that node.
      int o = l.from() != 0 ? l.from() : l.to();
      owners[l.id()] = o <= options.size() ? o : 0;
      if (l.from() == w.nodeId() || (l.from() == 0 && l.to() == w.nodeId())) {
        metrics.bindLink(model, l.id());
      }
    }
    linkOwner = owners;
    Peer[] ps = new Peer[options.size() + 1];
    for (int i = 1; i <= options.size(); i++) {
      ps[i] = new Peer(i);
    }
    peers = ps;
    touched = new Peer[ps.length];
    // Senders that respect isWritable never fill the shared outbox, whatever the peer count.
    frameHighWater = Math.max(16, OUTBOX / (2 * options.size()));
    this.links = new NodeLinkState(faults, topology, w.nodeId(), options.size(), scheduler::execute);
    nodeId = w.nodeId();
    checkDirectory();
    try {
      if (!allJoined.await(left(deadline).toNanos(), TimeUnit.NANOSECONDS)) {
        List<Integer> missing = new ArrayList<>();
        for (int r = 0; r < options.size(); r++) {
          if (directory.node(r + 1) == null) {
            missing.add(r);
          }
        }
        throw new FabricTimeoutException("join: ranks " + missing + " of verbs.size=" + options.size()
            + " did not join within verbs.fabric.join-timeout-ms=" + joinTimeout.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FabricException("join interrupted", e);
    }
    connectAll(deadline);
    LOG.debug("node {} (rank {}/{}) connected over {} to {} peers", nodeId, options.rank(), options.size(),
        transports.name(), options.size() - 1);
  }

  private static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }

  private void configure(Channel ch) {
    ch.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(highWater / 2, highWater));
    ch.config().setAllocator(alloc);
    ReceiveTuning.socketBuffers(ch, (int) options.getLong(FabricOptions.UDS_SOCKET_BUFFER));
  }

  private String listen() {
    String transport = options.get(FabricOptions.TRANSPORT);
    String bindHost = options.get(FabricOptions.HOST);
    StringBuilder addr = new StringBuilder();
    ServerBootstrap tcp = serverBootstrap(transports.tcpServer());
    tcp.childOption(ChannelOption.TCP_NODELAY, true);
    Channel t = tcp.bind(new InetSocketAddress(bindHost, (int) options.getLong(FabricOptions.PORT))).syncUninterruptibly().channel();
    servers.add(t);
    addr.append("tcp:").append(bindHost).append(':').append(((InetSocketAddress) t.localAddress()).getPort());
    boolean uds = "uds".equals(transport) || ("auto".equals(transport) && transports.epoll());
    if (uds) {
      String dir = options.get(FabricOptions.UDS_DIR);
      Path d = Path.of(dir.isEmpty() ? System.getProperty("java.io.tmpdir") : dir);
      udsPath = d.resolve("verbs4j-" + ProcessHandle.current().pid() + "-" + options.rank() + "-"
          + Integer.toHexString(ThreadLocalRandom.current().nextInt()) + ".sock");
      try {
        Files.deleteIfExists(udsPath);
      } catch (IOException e) {
        throw new FabricException("verbs.fabric.uds-dir=" + d + ": cannot prepare " + udsPath + ": " + e.getMessage(), e);
      }
      Channel u = serverBootstrap(transports.udsServer()).bind(transports.udsAddress(udsPath.toString())).syncUninterruptibly().channel();
      servers.add(u);
      addr.append(",uds:").append(udsPath);
    }
    return addr.toString();
  }

  private ServerBootstrap serverBootstrap(Class<? extends io.netty.channel.ServerChannel> cls) {
    return new ServerBootstrap().group(group).channel(cls).childHandler(new ChannelInitializer<Channel>() {
      @Override
      protected void initChannel(Channel ch) {
        configure(ch);
        FrameDecoder decoder = new FrameDecoder(options.mtu(), metrics, () -> nodeId);
        ReceiveTuning.apply(ch, decoder, FrameHeader.LENGTH + options.mtu());
        ch.pipeline().addLast("decoder", decoder);
        ch.pipeline().addLast("dispatch", new Dispatcher());
      }
    });
  }

  private void connectAll(long deadline) {
    String transport = options.get(FabricOptions.TRANSPORT);
    List<ChannelFuture> futures = new ArrayList<>();
    List<Peer> targets = new ArrayList<>();
    for (NodeInfo n : directory.nodes()) {
      if (n.nodeId() == nodeId || !n.up()) {
        continue;
      }
      String tcpAddr = null;
      String udsAddr = null;
      for (String a : n.address().split(",")) {
        if (a.startsWith("tcp:")) {
          tcpAddr = a.substring(4);
        } else if (a.startsWith("uds:")) {
          udsAddr = a.substring(4);
        }
      }
      boolean useUds = udsAddr != null && !"tcp".equals(transport) && n.host().equals(host);
      Bootstrap b = new Bootstrap().group(group).handler(new ChannelInitializer<Channel>() {
        @Override
        protected void initChannel(Channel ch) {
          configure(ch);
          ch.pipeline().addLast("outbound", new Outbound(n.nodeId()));
        }
      });
      ChannelFuture f;
      if (useUds) {
        f = b.channel(transports.udsClient()).connect(transports.udsAddress(udsAddr));
      } else {
        if (tcpAddr == null) {
          throw new FabricException("node " + n.nodeId() + " advertises no tcp address: " + n.address());
        }
        int c = tcpAddr.lastIndexOf(':');
        f = b.channel(transports.tcpClient()).option(ChannelOption.TCP_NODELAY, true)
            .connect(new InetSocketAddress(tcpAddr.substring(0, c), Integer.parseInt(tcpAddr.substring(c + 1))));
      }
      futures.add(f);
      targets.add(peers[n.nodeId()]);
    }
    for (int i = 0; i < futures.size(); i++) {
      ChannelFuture f = futures.get(i);
      if (!f.awaitUninterruptibly(left(deadline).toMillis())) {
        throw new FabricTimeoutException("connect to node " + targets.get(i).id + " timed out");
      }
      if (!f.isSuccess()) {
        throw new FabricException("connect to node " + targets.get(i).id + " failed: " + f.cause(), f.cause());
      }
      // Set here, not in a listener: listeners may run after await returns, and open() must
      // return with every peer connected.
      targets.get(i).channel = f.channel();
    }
  }

  private final class Events implements CoordinatorClient.Events {
    @Override
    public void onDirectory(NodeDirectory d) {
      directory = d;
      checkDirectory();
      for (NodeInfo n : d.nodes()) {
        if (!n.up()) {
          markDown(n.nodeId());
        }
      }
    }

    @Override
    public void onPeerDown(int id) {
      markDown(id);
    }

    @Override
    public void onCoordinatorLost(Throwable cause) {
      LOG.warn("node {}: coordinator lost ({}); peer liveness is no longer tracked", nodeId, cause.toString());
    }
  }

  private void checkDirectory() {
    if (nodeId == 0) {
      return;
    }
    int up = 0;
    for (NodeInfo n : directory.nodes()) {
      if (n.up()) {
        up++;
      }
    }
    if (directory.nodes().size() >= options.size() || up >= options.size()) {
      allJoined.countDown();
    }
  }

  private void markDown(int id) {
    Peer[] ps = peers;
    if (id <= 0 || id >= ps.length || ps[id] == null || id == nodeId) {
      return;
    }
    Peer p = ps[id];
    if (!p.up) {
      return;
    }
    p.up = false;
    Channel ch = p.channel;
    if (ch != null) {
      ch.close();
    }
    LOG.debug("node {}: peer {} down", nodeId, id);
    loop.execute(() -> {
      releaseHeld(p);
      for (PeerListener l : peerListeners) {
        try {
          l.onPeerDown(id);
        } catch (RuntimeException e) {
          LOG.warn("node {}: peer listener threw", nodeId, e);
        }
      }
    });
  }

  /** Receives frames on accepted connections. */
  private final class Dispatcher extends ChannelInboundHandlerAdapter {
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      int r = frame.readerIndex();
      header.decode(frame, r);
      if (faults.anyLinkDown() && overDownLink()) {
        dropFrame(DropReason.LINK_DOWN, frame);
        return;
      }
      if (header.type() == FrameHeader.TYPE_TRANSIT) {
        onTransit(frame, r);
        return;
      }
      frame.skipBytes(FrameHeader.LENGTH);
      deliver(frame);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("node {}: inbound connection {} failed: {}", nodeId, ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    }
  }

  /**
   * Faults are per process: a link this process took down drops the frames it receives over it
   * too, so that a node whose own links are down is cut off in both directions.
   */
  private boolean overDownLink() {
    int src = header.src();
    int dst = header.dst();
    int max = topology.maxNodes();
    return src >= 1 && src <= max && dst >= 1 && dst <= max && faults.routeDown(topology.route(src, dst));
  }

  /** Outgoing connection: back-pressure events and errors. */
  private final class Outbound extends ChannelInboundHandlerAdapter {
    private final int peer;

    Outbound(int peer) {
      this.peer = peer;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      Peer p = peers[peer];
      metrics.bindPeer(peer, ctx.channel(), c -> {
        io.netty.channel.ChannelOutboundBuffer b = c.unsafe().outboundBuffer();
        return b == null ? 0 : b.totalPendingWriteBytes();
      });
      ctx.fireChannelActive();
      if (p != null) {
        p.channel = ctx.channel();
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      boolean w = ctx.channel().isWritable();
      Peer p = peers[peer];
      if (p != null && p.lastWritable != w) {
        p.lastWritable = w;
        // Frames to every destination whose next process is this peer share the connection.
        for (int dst = 1; dst <= options.size(); dst++) {
          if (dst == nodeId || via(dst) != peer) {
            continue;
          }
          for (WritabilityListener l : writabilityListeners) {
            try {
              l.onWritabilityChanged(dst, w);
            } catch (RuntimeException e) {
              LOG.warn("node {}: writability listener threw", nodeId, e);
            }
          }
        }
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      // Outgoing connections carry no inbound frames; count and drop anything that arrives.
      ByteBuf b = (ByteBuf) msg;
      metrics.drop(DropReason.MISROUTED, b.readableBytes());
      b.release();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("node {}: connection to peer {} failed: {}", nodeId, peer, cause.toString());
      ctx.close();
    }
  }

  private void deliver(ByteBuf payload) {
    FrameReceiver r = receiver;
    if (!open || r == null) {
      metrics.drop(open ? DropReason.NO_RECEIVER : DropReason.CLOSED, payload.readableBytes());
      payload.release();
      return;
    }
    if (timers != null) {
      long arrival = header.arrivalTimeNanos();
      if (timers.dueBy(arrival)) {
        // Timers due before this frame arrives fire first, as in modelled-time order. They do not
        // touch the header: frames are decoded into it only by the channel handlers.
        timers.runUntil(arrival);
      }
      clock.advanceTo(arrival);
    }
    metrics.received(header.length());
    try {
      r.onFrame(header, payload);
    } catch (RuntimeException | Error e) {
      metrics.drop(DropReason.RECEIVER_ERROR, header.length());
      LOG.warn("node {}: receiver threw on frame from node {}", nodeId, header.src(), e);
    }
    if (timers != null) {
      timers.runDue(); // the receiver may have charged the clock past a deadline
    }
  }

  private boolean drop(DropReason r, ByteBuf payload) {
    metrics.drop(r, payload.readableBytes());
    payload.release();
    return false;
  }

  /**
   * With {@code verbs.fabric.progress=caller}, runs the node's ready I/O, tasks and timers on the
   * calling thread and then {@code work}, all as the node's event-loop thread (so frames {@code
   * work} sends are written to the socket at once), unless another thread is running them; else
   * just {@code work}.
   */
  @Override
  public int progress(IntSupplier work) {
    return shared != null ? shared.drive(work) : work.getAsInt();
  }

  @Override
  public int progress(IntSupplier work, boolean pollIo) {
    return shared != null ? shared.drive(work, pollIo) : work.getAsInt();
  }

  @Override
  public void yieldProgress() {
    if (shared != null) {
      shared.yieldToBackground();
    }
  }

  @Override
  public boolean onCallersIdle(Runnable task) {
    if (shared == null) {
      return false;
    }
    shared.onTakeover(task);
    return true;
  }

  @Override
  public boolean send(int dstNode, int tag, ByteBuf payload) {
    if (!open) {
      return drop(DropReason.CLOSED, payload);
    }
    if (timers != null) {
      timers.poke(); // a charge on this thread may have passed a timer's deadline
    }
    Peer[] ps = peers;
    if (dstNode < 1 || dstNode >= ps.length) {
      return drop(DropReason.UNKNOWN_NODE, payload);
    }
    Route route = topology.route(nodeId, dstNode);
    int len = payload.readableBytes();
    if (len > options.mtu() || len > model.mtu(route)) {
      return drop(DropReason.MTU, payload);
    }
    if (faults.routeDown(route)) {
      return drop(DropReason.LINK_DOWN, payload);
    }
    Peer p = ps[dstNode];
    if (dstNode != nodeId && !p.up) {
      return drop(DropReason.NODE_DOWN, payload);
    }
    int mask = faults.decide(nodeId, dstNode);
    if (mask != 0) {
      return sendFaulty(p, route, tag, payload, mask);
    }
    return transmit(p, route, tag, payload, clock.nowNanos(), 0);
  }

  private boolean sendFaulty(Peer p, Route route, int tag, ByteBuf payload, int mask) {
    if ((mask & FaultAction.DOWN.bit()) != 0) {
      return drop(DropReason.LINK_DOWN, payload);
    }
    if ((mask & FaultAction.DROP.bit()) != 0) {
      drop(DropReason.FAULT_DROP, payload);
      return true;
    }
    if ((mask & FaultAction.CORRUPT.bit()) != 0) {
      if ((tag & FrameHeader.TAG_UNCHECKED) != 0) {
        drop(DropReason.UNCHECKED_CORRUPT, payload);
        return true;
      }
      ByteBuf copy = alloc.directBuffer(payload.readableBytes()).writeBytes(payload);
      payload.release();
      payload = copy;
      faults.corrupt(nodeId, p.id, payload);
    }
    long now = clock.nowNanos();
    long delay = (mask & FaultAction.DELAY.bit()) != 0 ? faults.delayNanos(nodeId, p.id) : 0;
    if ((mask & FaultAction.DUPLICATE.bit()) != 0) {
      ByteBuf dup = alloc.directBuffer(payload.readableBytes()).writeBytes(payload, payload.readerIndex(), payload.readableBytes());
      transmit(p, route, tag, dup, now, delay);
    }
    if ((mask & FaultAction.REORDER.bit()) != 0 && route.dst() != nodeId) {
      int done = ownedHops(route, 0);
      Peer via = peers[nextNode(route, done)];
      ByteBuf frame = encode(route, done, tag, payload, now, delay);
      synchronized (p) {
        if (p.heldFrame == null) {
          p.heldFrame = frame;
          p.heldVia = via;
          ByteBuf expected = frame;
          p.heldTimer = loop.schedule(() -> flushHeld(p, expected), faults.reorderWindowNanos(), TimeUnit.NANOSECONDS);
          return true;
        }
      }
      return writeOwn(p, via, frame, delay);
    }
    return transmit(p, route, tag, payload, now, delay);
  }

  /**
   * The node whose process models a link: its transmitter, or the receiving node of a switch's
   * link; 0 if that node has no live process, in which case whoever holds the frame models it.
   */
  private int owner(int linkId) {
    int[] owners = linkOwner;
    int o = linkId < owners.length ? owners[linkId] : 0;
    if (o == 0 || o == nodeId) {
      return o;
    }
    Peer p = peers[o];
    return p != null && p.up ? o : 0;
  }

  /** @return the first hop at or after {@code from} that this process does not model (or hops()) */
  private int ownedHops(Route route, int from) {
    int n = route.hops();
    int i = from;
    while (i < n) {
      int o = owner(route.link(i));
      if (o != 0 && o != nodeId) {
        break;
      }
      i++;
    }
    return i;
  }

  /** @return the process a frame goes to once hops {@code 0..done-1} are modelled */
  private int nextNode(Route route, int done) {
    return done == route.hops() ? route.dst() : owner(route.link(done));
  }

  /**
   * @param dst a destination other than this node
   * @return the node whose connection this node's frames to {@code dst} take
   */
  private int via(int dst) {
    Route route = topology.route(nodeId, dst);
    return nextNode(route, ownedHops(route, 0));
  }

  /**
   * Models hops {@code 0..done-1} of a frame and builds it: a data frame if that is the whole
   * route, else a transit frame for the next link's process. Takes ownership of {@code payload}.
   */
  private ByteBuf encode(Route route, int done, int tag, ByteBuf payload, long sendTime, long delay) {
    int len = payload.readableBytes();
    // A delayed frame enters its first link late (the delay fault holds it at the sender).
    long time = model.advance(route, 0, done, sendTime + delay, len);
    int type = done == route.hops() ? FrameHeader.TYPE_DATA : FrameHeader.TYPE_TRANSIT;
    if (len <= COPY_LIMIT) {
      ByteBuf b = alloc.directBuffer(FrameHeader.LENGTH + len);
      FrameHeader.write(b, type, done, nodeId, route.dst(), tag, len, sendTime, time);
      b.writeBytes(payload, payload.readerIndex(), len);
      payload.release();
      return b;
    }
    ByteBuf h = alloc.directBuffer(FrameHeader.LENGTH);
    FrameHeader.write(h, type, done, nodeId, route.dst(), tag, len, sendTime, time);
    CompositeByteBuf c = alloc.compositeDirectBuffer(2);
    c.addComponents(true, h, payload);
    return c;
  }

  private boolean transmit(Peer p, Route route, int tag, ByteBuf payload, long sendTime, long delay) {
    if (route.dst() == nodeId) {
      // To self: no socket; delivered on the event loop like any frame.
      long arrival = sendTime + delay;
      int len = payload.readableBytes();
      metrics.sent(len);
      loop.execute(() -> {
        header.set(0, nodeId, nodeId, tag, len, sendTime, arrival);
        deliver(payload);
      });
      return true;
    }
    int done = ownedHops(route, 0);
    Peer via = peers[nextNode(route, done)];
    if (loop.inEventLoop() && outbox.isEmpty()) {
      boolean ok = writeOwnOnLoop(via, route, done, tag, payload, sendTime, delay, true);
      flushHeldAfter(p);
      return ok;
    }
    return enqueue(p, via, route, done, tag, payload, sendTime, delay);
  }

  /** From any thread: queue a frame for the event loop to encode and write (see {@link #outbox}). */
  private boolean enqueue(Peer dst, Peer via, Route route, int done, int tag, ByteBuf payload, long sendTime, long delay) {
    Channel ch = via.channel;
    if (ch == null || !via.up) {
      return drop(DropReason.NODE_DOWN, payload);
    }
    long bytes = FrameHeader.LENGTH + (long) payload.readableBytes();
    long q = via.queued.addAndGet(bytes);
    int frames = via.queuedFrames.incrementAndGet();
    ChannelOutboundBuffer ob = ch.unsafe().outboundBuffer();
    long pending = ob == null ? 0 : ob.totalPendingWriteBytes();
    Outgoing o;
    if (q + pending > maxPending || (o = takeSpare()) == null) {
      via.queued.addAndGet(-bytes);
      via.queuedFrames.decrementAndGet();
      return drop(DropReason.BACKPRESSURE, payload);
    }
    o.dst = dst;
    o.via = via;
    o.route = route;
    o.done = done;
    o.tag = tag;
    o.payload = payload;
    o.sendTime = sendTime;
    o.delay = delay;
    o.bytes = bytes;
    if (!outbox.offer(o)) {
      via.queued.addAndGet(-bytes);
      via.queuedFrames.decrementAndGet();
      o.payload = null;
      spare.offer(o);
      return drop(DropReason.BACKPRESSURE, payload);
    }
    if (q >= highWater || frames >= frameHighWater) {
      outboxWritability(via);
    }
    if (drainScheduled.compareAndSet(0, 1)) {
      loop.execute(drainTask);
    }
    return true;
  }

  /**
   * Any thread: sets the connection's outbox writability bit from the outbox's current content for
   * it (unwritable at the high-water marks, writable again below half of them). Under a lock, so
   * the bit always ends up matching the last evaluation whichever of the sender and the event loop
   * gets here last.
   */
  private void outboxWritability(Peer via) {
    synchronized (via.outboxLock) {
      long q = via.queued.get();
      int f = via.queuedFrames.get();
      boolean unwritable = via.outboxUnwritable ? q >= highWater / 2 || f >= frameHighWater / 2 : q >= highWater || f >= frameHighWater;
      if (unwritable == via.outboxUnwritable) {
        return;
      }
      Channel ch = via.channel;
      ChannelOutboundBuffer ob = ch == null ? null : ch.unsafe().outboundBuffer();
      if (ob != null) {
        via.outboxUnwritable = unwritable;
        ob.setUserDefinedWritability(OUTBOX_WRITABILITY_BIT, !unwritable);
      }
    }
  }

  private Outgoing takeSpare() {
    Outgoing o = spare.poll();
    return o != null ? o : new Outgoing();
  }

  /** Event loop: encode and write everything in the outbox, then flush each connection once. */
  private void drainOutbox() {
    drainScheduled.set(0); // before polling: a frame offered from now on schedules another drain
    int nTouched = 0;
    Peer[] t = touched;
    Outgoing o;
    int n = 0;
    while (n < OUTBOX && (o = outbox.poll()) != null) {
      n++;
      Peer dst = o.dst;
      Peer via = o.via;
      long delay = o.delay;
      ByteBuf payload = o.payload;
      long bytes = o.bytes;
      Route route = o.route;
      int done = o.done;
      int tag = o.tag;
      long sendTime = o.sendTime;
      o.dst = null;
      o.via = null;
      o.route = null;
      o.payload = null;
      spare.offer(o);
      long q = via.queued.addAndGet(-bytes);
      int frames = via.queuedFrames.decrementAndGet();
      if (!open) {
        drop(DropReason.CLOSED, payload);
        continue;
      }
      if (writeOwnOnLoop(via, route, done, tag, payload, sendTime, delay, false) && !via.needsFlush) {
        via.needsFlush = true;
        t[nTouched++] = via;
      }
      flushHeldAfter(dst);
      if (via.outboxUnwritable && q < highWater / 2 && frames < frameHighWater / 2) {
        outboxWritability(via);
      }
    }
    for (int i = 0; i < nTouched; i++) {
      t[i].needsFlush = false;
      Channel ch = t[i].channel;
      t[i] = null;
      if (ch != null) {
        ch.flush();
      }
    }
    if (!outbox.isEmpty() && drainScheduled.compareAndSet(0, 1)) {
      loop.execute(drainTask);
    }
  }

  /**
   * A transit frame reached this process (on the event loop): model the links this process owns,
   * then deliver it here or pass it on. The header was decoded into {@link #header}.
   */
  private void onTransit(ByteBuf frame, int at) {
    int src = header.src();
    int dst = header.dst();
    int done = header.hops();
    if (src > options.size() || dst > options.size() || src == dst || done >= topology.hops(src, dst)) {
      dropFrame(DropReason.MISROUTED, frame);
      return;
    }
    Route route = topology.route(src, dst);
    // The sender chose this process to model hop `done`: always take at least that one, so a
    // frame never bounces between processes that disagree about liveness.
    int next = ownedHops(route, done + 1);
    int len = header.length();
    long time = model.advance(route, done, next, header.arrivalTimeNanos(), len);
    if (next == route.hops() && dst == nodeId) {
      header.set(next, src, dst, header.tag(), len, header.sendTimeNanos(), time);
      frame.skipBytes(FrameHeader.LENGTH);
      deliver(frame);
      return;
    }
    // Store and forward: the frame (a slice of the read buffer, which this node owns) is rewritten
    // in place and written on; the write releases it.
    FrameHeader.advance(frame, at, next == route.hops() ? FrameHeader.TYPE_DATA : FrameHeader.TYPE_TRANSIT, next, time);
    writeTo(peers[nextNode(route, next)], frame, 0, false);
  }

  /**
   * Event loop: models, encodes and writes one of this node's frames. A payload above the copy
   * limit is written as a second message behind its header (Netty gathers them into one write
   * system call), which needs no composite buffer; that is safe only here, where no other thread
   * writes to the connection between the two.
   *
   * @return true if the frame was written (and, with {@code flush} false, a flush is owed)
   */
  private boolean writeOwnOnLoop(Peer via, Route route, int done, int tag, ByteBuf payload, long sendTime, long delay,
      boolean flush) {
    int len = payload.readableBytes();
    if (len <= COPY_LIMIT || (delay > 0 && !clock.isModelled())) {
      return writeTo(via, encode(route, done, tag, payload, sendTime, delay), delay, true, flush);
    }
    Channel ch = via.channel;
    if (ch == null || !via.up) {
      return drop(DropReason.NODE_DOWN, payload);
    }
    if (!ch.isWritable() && ch.bytesBeforeWritable() + highWater / 2 > maxPending) {
      return drop(DropReason.BACKPRESSURE, payload);
    }
    long time = model.advance(route, 0, done, sendTime + delay, len);
    ByteBuf h = alloc.directBuffer(FrameHeader.LENGTH);
    FrameHeader.write(h, done == route.hops() ? FrameHeader.TYPE_DATA : FrameHeader.TYPE_TRANSIT, done, nodeId, route.dst(), tag,
        len, sendTime, time);
    metrics.sent(len);
    ch.write(h, ch.voidPromise());
    if (flush) {
      ch.writeAndFlush(payload, ch.voidPromise());
    } else {
      ch.write(payload, ch.voidPromise());
    }
    return true;
  }

  /** Writes one of this node's own frames towards {@code dst} through the connection to {@code via}. */
  private boolean writeOwn(Peer dst, Peer via, ByteBuf frame, long delay) {
    boolean ok = writeTo(via, frame, delay, true);
    flushHeldAfter(dst);
    return ok;
  }

  private boolean writeTo(Peer via, ByteBuf frame, long delay, boolean own) {
    return writeTo(via, frame, delay, own, true);
  }

  /** @return true if the frame was written without a flush (the caller flushes), or handed on */
  private boolean writeTo(Peer via, ByteBuf frame, long delay, boolean own, boolean flush) {
    Channel ch = via.channel;
    if (ch == null || !via.up) {
      return dropFrame(DropReason.NODE_DOWN, frame);
    }
    if (!ch.isWritable() && ch.bytesBeforeWritable() + highWater / 2 > maxPending) {
      return dropFrame(DropReason.BACKPRESSURE, frame);
    }
    if (own) {
      metrics.sent(frame.readableBytes() - FrameHeader.LENGTH);
    } else {
      metrics.forwarded();
    }
    if (delay > 0 && !clock.isModelled()) {
      loop.schedule(() -> ch.writeAndFlush(frame, ch.voidPromise()), delay, TimeUnit.NANOSECONDS);
      return flush; // written later, flushed by the scheduled task
    }
    if (flush) {
      ch.writeAndFlush(frame, ch.voidPromise());
    } else {
      ch.write(frame, ch.voidPromise());
    }
    return true;
  }

  private boolean dropFrame(DropReason r, ByteBuf frame) {
    metrics.drop(r, frame.readableBytes() - FrameHeader.LENGTH);
    frame.release();
    return false;
  }

  private void flushHeldAfter(Peer p) {
    if (p.heldFrame == null) {
      return;
    }
    ByteBuf h;
    Peer via;
    synchronized (p) {
      h = p.heldFrame;
      via = p.heldVia;
      p.heldFrame = null;
      p.heldVia = null;
      if (p.heldTimer != null) {
        p.heldTimer.cancel(false);
        p.heldTimer = null;
      }
    }
    if (h != null) {
      writeTo(via, h, 0, true);
    }
  }

  private void flushHeld(Peer p, ByteBuf expected) {
    synchronized (p) {
      if (p.heldFrame != expected) {
        return;
      }
    }
    flushHeldAfter(p);
  }

  private void releaseHeld(Peer p) {
    ByteBuf h;
    synchronized (p) {
      h = p.heldFrame;
      p.heldFrame = null;
      p.heldVia = null;
    }
    if (h != null) {
      dropFrame(DropReason.NODE_DOWN, h);
    }
  }

  @Override
  public boolean isWritable(int dstNode) {
    Peer[] ps = peers;
    if (!open || dstNode < 1 || dstNode >= ps.length) {
      return false;
    }
    if (dstNode == nodeId) {
      return true;
    }
    Peer p = ps[dstNode];
    if (!p.up) {
      return false;
    }
    Peer v = ps[via(dstNode)];
    Channel ch = v.channel;
    return v.up && ch != null && ch.isWritable();
  }

  @Override
  public int nodeId() {
    return nodeId;
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
    return directory;
  }

  @Override
  public Topology topology() {
    return topology;
  }

  @Override
  public NodeClock clock() {
    return clock;
  }

  @Override
  public FabricScheduler scheduler() {
    return scheduler;
  }

  @Override
  public ByteBufAllocator alloc() {
    return alloc;
  }

  @Override
  public int mtu() {
    return options.mtu();
  }

  @Override
  public FabricMetrics metrics() {
    return metrics;
  }

  @Override
  public FabricOptions options() {
    return options;
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public boolean mayCorrupt() {
    return faults.mayCorrupt();
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
    return model;
  }

  /** @return the coordinator this process runs, or null if it runs none */
  public Coordinator embeddedCoordinator() {
    return embedded;
  }

  /** @return {@code epoll} or {@code nio} */
  public String ioName() {
    return transports.name();
  }

  /**
   * @param dstNode a peer
   * @return {@code tcp} or {@code uds}: the socket family of the connection to it, or {@code none}
   */
  public String transportTo(int dstNode) {
    Peer[] ps = peers;
    if (dstNode < 1 || dstNode >= ps.length || ps[dstNode].channel == null) {
      return "none";
    }
    return ps[dstNode].channel.remoteAddress() instanceof InetSocketAddress ? "tcp" : "uds";
  }

  @Override
  public void setReceiver(FrameReceiver receiver) {
    this.receiver = receiver;
  }

  @Override
  public void addPeerListener(PeerListener listener) {
    peerListeners.add(listener);
  }

  @Override
  public void removePeerListener(PeerListener listener) {
    peerListeners.remove(listener);
  }

  @Override
  public NodeLinks links() {
    if (links == null) {
      throw new FabricException("links: node is not started");
    }
    return links;
  }

  @Override
  public void addWritabilityListener(WritabilityListener listener) {
    writabilityListeners.add(listener);
  }

  @Override
  public void removeWritabilityListener(WritabilityListener listener) {
    writabilityListeners.remove(listener);
  }

  private CoordinatorClient client(String what) {
    if (!open) {
      throw new FabricException(what + ": node " + nodeId + " is closed");
    }
    return client;
  }

  @Override
  public void kvPut(String key, byte[] value) {
    client("kvPut key='" + key + "'").put(key, value, Duration.ofMillis(options.getLong(FabricOptions.JOIN_TIMEOUT_MS)));
  }

  @Override
  public byte[] kvGet(String key, Duration timeout) {
    return client("kvGet key='" + key + "'").get(key, timeout);
  }

  @Override
  public void barrier(String name, Duration timeout) {
    client("barrier '" + name + "'").barrier(name, timeout);
  }

  @Override
  public void close() {
    synchronized (this) {
      if (!open) {
        return;
      }
      open = false;
    }
    if (links != null) {
      links.close();
    }
    RuntimeException failure = null;
    if (client != null) {
      try {
        client.close();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    for (Peer p : peers) {
      if (p != null) {
        releaseHeld(p);
        if (p.channel != null) {
          p.channel.close();
        }
      }
    }
    for (Channel s : servers) {
      s.close();
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    if (!loop.inEventLoop()) {
      group.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
      Outgoing o;
      while ((o = outbox.poll()) != null) {
        drop(DropReason.CLOSED, o.payload);
        o.payload = null;
      }
    }
    if (embedded != null) {
      embedded.close();
    }
    if (udsPath != null) {
      try {
        Files.deleteIfExists(udsPath);
      } catch (IOException e) {
        RuntimeException r = new FabricException("cannot delete " + udsPath, e);
        if (failure == null) {
          failure = r;
        } else {
          failure.addSuppressed(r);
        }
      }
    }
    metrics.close();
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "NettyNode{id=" + nodeId + ", rank=" + options.rank() + "/" + options.size() + ", io=" + transports.name()
        + ", peers=" + Arrays.toString(Arrays.stream(peers).filter(p -> p != null).mapToInt(p -> p.id).toArray()) + "}";
  }

  /** Tasks and timers on the node's event loop: wall delays, or modelled ({@link ModelledTimers}). */
  private final class Scheduler implements FabricScheduler {
    @Override
    public FabricTimer schedule(long delayNanos, Runnable task) {
      if (delayNanos < 0) {
        throw new IllegalArgumentException("schedule delayNanos=" + delayNanos + " must not be negative");
      }
      if (timers != null) {
        return timers.schedule(delayNanos, task);
      }
      ScheduledFuture<?> f = loop.schedule(() -> run(task), delayNanos, TimeUnit.NANOSECONDS);
      return () -> f.cancel(false);
    }

    @Override
    public void execute(Runnable task) {
      loop.execute(() -> {
        run(task);
        if (timers != null) {
          timers.runDue(); // the task may have charged the clock past a deadline
        }
      });
    }

    private void run(Runnable task) {
      if (!open) {
        return;
      }
      try {
        task.run();
      } catch (RuntimeException | Error e) {
        LOG.warn("node {}: fabric task threw", nodeId, e);
      }
    }

    @Override
    public boolean inFabricThread() {
      return loop.inEventLoop();
    }
  }
}
