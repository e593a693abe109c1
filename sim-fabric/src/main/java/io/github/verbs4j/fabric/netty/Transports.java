package io.github.verbs4j.fabric.netty;

import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerDomainSocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;

/**
 * The Netty classes for one I/O implementation: native epoll on Linux when available (and {@code
 * verbs.fabric.io} allows), else NIO. Both give TCP and Unix domain sockets (NIO through JDK 16+
 * {@link UnixDomainSocketAddress}).
 *
 * @param epoll true for native epoll
 */
public record Transports(boolean epoll) {

  /**
   * @param io {@code auto}, {@code epoll} or {@code nio}
   * @return the transports
   * @throws IllegalArgumentException if {@code epoll} is asked for but unavailable
   */
  public static Transports choose(String io) {
    return switch (io) {
      case "nio" -> new Transports(false);
      case "epoll" -> {
        if (!Epoll.isAvailable()) {
          throw new IllegalArgumentException("verbs.fabric.io=epoll but native epoll is unavailable: " + Epoll.unavailabilityCause());
        }
        yield new Transports(true);
      }
      default -> new Transports(Epoll.isAvailable());
    };
  }

  /**
   * An event loop that never sleeps in the selector: it polls epoll without a timeout ({@link
   * io.netty.channel.SelectStrategy#BUSY_WAIT}), trading a core for the wake-up. Benchmarks use it
   * as the raw baseline of paths that poll ({@code verbs.fabric.progress=caller}).
   *
   * @return the busy-polling handler factory, or null with NIO (which cannot busy-wait)
   */
  public IoHandlerFactory busyPollIoHandlerFactory() {
    return epoll ? EpollIoHandler.newFactory(0, () -> (selectNow, hasTasks) -> io.netty.channel.SelectStrategy.BUSY_WAIT)
        : null;
  }

  /** @return the I/O handler factory for a {@link io.netty.channel.MultiThreadIoEventLoopGroup} */
  public IoHandlerFactory ioHandlerFactory() {
    return epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
  }

  /** @return TCP server channel class */
  public Class<? extends ServerChannel> tcpServer() {
    return epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
  }

  /** @return TCP client channel class */
  public Class<? extends Channel> tcpClient() {
    return epoll ? EpollSocketChannel.class : NioSocketChannel.class;
  }

  /** @return Unix domain socket server channel class */
  public Class<? extends ServerChannel> udsServer() {
    return epoll ? EpollServerDomainSocketChannel.class : NioServerDomainSocketChannel.class;
  }

  /** @return Unix domain socket client channel class */
  public Class<? extends Channel> udsClient() {
    return epoll ? EpollDomainSocketChannel.class : NioDomainSocketChannel.class;
  }

  /**
   * @param path a socket file
   * @return the address type this implementation expects
   */
  public SocketAddress udsAddress(String path) {
    return epoll ? new DomainSocketAddress(path) : UnixDomainSocketAddress.of(path);
  }

  /** @return {@code epoll} or {@code nio} */
  public String name() {
    return epoll ? "epoll" : "nio";
  }
}
