package io.github.verbs4j.fabric.netty;

import io.github.verbs4j.fabric.FabricException;
import io.github.verbs4j.fabric.FabricOptions;
import io.github.verbs4j.fabric.FabricTimeoutException;
import io.github.verbs4j.fabric.JobChannel;
import io.github.verbs4j.fabric.NodeDirectory;
import io.github.verbs4j.fabric.NodeInfo;
import io.github.verbs4j.fabric.auth.JobSecret;
import io.github.verbs4j.fabric.auth.JobTls;
import io.netty.handler.ssl.SslContext;
import io.github.verbs4j.fabric.auth.PrivateDir;
import io.github.verbs4j.fabric.coord.Coordinator;
import io.github.verbs4j.fabric.coord.CoordinatorClient;
import io.github.verbs4j.fabric.topo.TopologySpec;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A netty node's membership: the coordinator (run here when {@code verbs.coordinator=embedded:...}
 * and this is rank 0), the data listeners (TCP, plus a Unix socket when the transport allows), the
 * join (hello, wait for every rank), one outgoing connection per peer, the node directory and peer
 * liveness ({@link Peer#up}), and the job's key-value store and barriers over the coordinator
 * connection. Frames are not its business: the connections' handlers are the node's.
 */
final class NettyMembership implements CoordinatorClient.Events {
  private static final Logger LOG = LoggerFactory.getLogger(NettyMembership.class);

  private final NettyNode node;
  private final FabricOptions options;
  private final Transports transports;
  private final EventLoopGroup group;
  private final int highWater;
  private final String host = hostName();
  private final List<Channel> servers = new ArrayList<>();
  private final CountDownLatch allJoined = new CountDownLatch(1);
  private Path udsPath;
  private Coordinator embedded;
  private CoordinatorClient client;
  private JobSecret secret; // proved to the coordinator; every data connection proves it too
  private SslContext tlsServer; // verbs.fabric.tls=on: set with the secret, else null
  private SslContext tlsClient;
  private JobChannel job; // set by join, before the node is handed out
  private volatile NodeDirectory directory = new NodeDirectory(List.of());
  private volatile Peer[] peers = new Peer[0];

  NettyMembership(NettyNode node, FabricOptions options, Transports transports, EventLoopGroup group) {
    this.node = node;
    this.options = options;
    this.transports = transports;
    this.group = group;
    this.highWater = (int) options.getLong(FabricOptions.HIGH_WATER);
  }

  private static final io.netty.util.AttributeKey<ChannelFuture> AUTHENTICATED =
      io.netty.util.AttributeKey.valueOf("verbs4j.authenticated");

  /**
   * @return the TLS context for accepted TCP connections ({@code verbs.fabric.tls=on}), else null;
   *     set once {@link #hello} has proved the secret
   */
  SslContext tlsServer() {
    return tlsServer;
  }

  /** @return the TLS context for this node's TCP connections to peers, else null */
  SslContext tlsClient() {
    return tlsClient;
  }

  /** @return the job secret, once {@link #hello} has proved it to the coordinator */
  JobSecret secret() {
    return secret;
  }

  private static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      String h = System.getenv("HOSTNAME");
      return h != null ? h : "localhost";
    }
  }

  static Duration left(long deadline) {
    return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }

  /**
   * Starts the coordinator if this rank runs it, listens, connects to the coordinator and says
   * hello; creates one {@link Peer} per rank.
   *
   * @param deadline {@link System#nanoTime()} by which the node must have joined
   * @return the coordinator's answer (this node's id, the job's topology)
   */
  /** @return the coordinator client, once {@link #hello} has connected it */
  CoordinatorClient client() {
    return client;
  }

  CoordinatorClient.Welcome hello(long deadline) {
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
      // This rank starts the job: the secret handed to it, else a fresh one the coordinator leaves
      // in the private directory for the other ranks on this host.
      embedded = Coordinator.start(ca.host(), ca.port(), Duration.ofMillis(options.getLong(FabricOptions.PEER_TIMEOUT_MS)),
          JobSecret.fromEnvironment(System.getenv()).orElseGet(JobSecret::generate), options.tls());
      coordPort = embedded.port();
    } else if (ca.port() == 0) {
      throw new IllegalArgumentException("verbs.coordinator=" + coordSpec + ": rank " + options.rank()
          + " cannot find an embedded coordinator on an ephemeral port; give a port");
    }
    int port = coordPort;
    Coordinator own = embedded;
    client = CoordinatorClient.connect(ca.host(), coordPort, left(deadline),
        Duration.ofMillis(options.getLong(FabricOptions.HEARTBEAT_MS)), this,
        () -> own != null ? own.secret() : JobSecret.forCoordinator(System.getenv(), port), options.tls());
    secret = client.secret();
    if (options.tls()) {
      JobTls t = JobTls.of(secret);
      tlsServer = t.nettyServer();
      tlsClient = t.nettyClient();
    }
    String address = listen();
    job = new NettyJob(node, client, Duration.ofMillis(options.getLong(FabricOptions.JOIN_TIMEOUT_MS)));
    CoordinatorClient.Welcome w = client.hello(options.rank(), options.size(), address, host,
        TopologySpec.parse(options.get(FabricOptions.TOPOLOGY)).toString(), options.kvsPlacement(), left(deadline));
    Peer[] ps = new Peer[options.size() + 1];
    for (int i = 1; i <= options.size(); i++) {
      ps[i] = new Peer(i);
    }
    peers = ps;
    return w;
  }

  /**
   * Waits until every rank has joined, then connects to each peer. Call once the node knows its
   * id ({@link NettyNode#nodeId()}).
   *
   * @param deadline {@link System#nanoTime()} by which the node must have joined
   */
  void connect(long deadline) {
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
            + " did not join within verbs.fabric.join-timeout-ms=" + options.getLong(FabricOptions.JOIN_TIMEOUT_MS));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FabricException("join interrupted", e);
    }
    connectAll(deadline);
  }

  private void configure(Channel ch) {
    ch.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(highWater / 2, highWater));
    ch.config().setAllocator(PooledByteBufAllocator.DEFAULT);
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
      Path d = PrivateDir.of(options.get(FabricOptions.UDS_DIR));
      PrivateDir.cleanStale(d);
      udsPath = PrivateDir.socketPath(d, options.rank());
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

  private ServerBootstrap serverBootstrap(Class<? extends ServerChannel> cls) {
    return new ServerBootstrap().group(group).channel(cls).childHandler(new ChannelInitializer<Channel>() {
      @Override
      protected void initChannel(Channel ch) {
        configure(ch);
        node.initInbound(ch);
      }
    });
  }

  private void connectAll(long deadline) {
    String transport = options.get(FabricOptions.TRANSPORT);
    List<ChannelFuture> futures = new ArrayList<>();
    List<Peer> targets = new ArrayList<>();
    for (NodeInfo n : directory.nodes()) {
      if (n.nodeId() == node.nodeId() || !n.up()) {
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
          ch.attr(AUTHENTICATED).set(node.initOutbound(ch, n.nodeId()));
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
      ChannelFuture auth = f.channel().attr(AUTHENTICATED).get();
      if (!auth.awaitUninterruptibly(left(deadline).toMillis())) {
        throw new FabricTimeoutException("handshake with node " + targets.get(i).id + " timed out");
      }
      if (!auth.isSuccess()) {
        throw new FabricException("handshake with node " + targets.get(i).id + " failed: " + auth.cause().getMessage(),
            auth.cause());
      }
      // Set here, not in a listener: listeners may run after await returns, and open() must
      // return with every peer connected.
      targets.get(i).channel = f.channel();
    }
  }

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
    LOG.warn("node {}: coordinator lost ({}); peer liveness is no longer tracked", node.nodeId(), cause.toString());
  }

  private void checkDirectory() {
    if (node.nodeId() == 0) {
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
    Peer p = peer(id);
    if (p == null || id == node.nodeId() || !p.up) {
      return;
    }
    p.up = false;
    Channel ch = p.channel;
    if (ch != null) {
      ch.close();
    }
    LOG.debug("node {}: peer {} down", node.nodeId(), id);
    node.peerDown(id);
  }

  /** @return the peers, indexed by node id (entry 0 unused); empty until {@link #hello} */
  Peer[] peers() {
    return peers;
  }

  /**
   * @param id a node id
   * @return its peer, or null if there is none
   */
  Peer peer(int id) {
    Peer[] ps = peers;
    return id > 0 && id < ps.length ? ps[id] : null;
  }

  NodeDirectory directory() {
    return directory;
  }

  JobChannel job() {
    return job;
  }

  Coordinator embedded() {
    return embedded;
  }

  /**
   * @param dstNode a peer
   * @return {@code tcp} or {@code uds}: the socket family of the connection to it, or {@code none}
   */
  String transportTo(int dstNode) {
    Peer p = peer(dstNode);
    Channel ch = p == null ? null : p.channel;
    if (ch == null) {
      return "none";
    }
    return ch.remoteAddress() instanceof InetSocketAddress ? "tcp" : "uds";
  }

  /** Leaves the job: the coordinator connection first (peers hear this node is down). */
  RuntimeException closeClient() {
    if (client == null) {
      return null;
    }
    try {
      client.close();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  /** Closes the connections and listeners (their pending frames are released by Netty). */
  void closeChannels() {
    for (Peer p : peers) {
      if (p != null && p.channel != null) {
        p.channel.close();
      }
    }
    for (Channel s : servers) {
      s.close();
    }
  }

  /**
   * Stops the embedded coordinator and deletes the Unix socket file; call after the event loop
   * has stopped.
   *
   * @param failure an earlier failure to add to, or null
   * @return the failure (the first, others suppressed), or null
   */
  RuntimeException closeRest(RuntimeException failure) {
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
    return failure;
  }
}
