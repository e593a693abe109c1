package io.github.verbs4j.fabric.netty;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.verbs4j.fabric.FabricOptions;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The socket buffers the fabric sets on its Unix domain socket connections, read back from the kernel. */
class ReceiveTuningTest {
  private static final int MIB = 1 << 20;

  private static long sysctl(String name) throws IOException {
    // readAllLines, not readString: JDK 17's readString returns a truncated value for procfs files
    return Long.parseLong(Files.readAllLines(Path.of("/proc/sys/net/core", name)).get(0).trim());
  }

  private static void close(Channel ch) {
    ch.unsafe().closeForcibly();
  }

  @Test
  void unixSocketGetsBothBuffersAsTheKernelGrantsThem() throws IOException {
    assumeTrue(Epoll.isAvailable(), "native epoll");
    EpollDomainSocketChannel ch = new EpollDomainSocketChannel();
    try {
      ReceiveTuning.socketBuffers(ch, MIB);
      // Linux stores twice the requested size (bookkeeping overhead), capped at the sysctl maximum.
      assertEquals(2 * Math.min(MIB, sysctl("wmem_max")), (long) ch.config().getOption(ChannelOption.SO_SNDBUF));
      assertEquals(2 * Math.min(MIB, sysctl("rmem_max")), (long) ch.config().getOption(ChannelOption.SO_RCVBUF));
    } finally {
      close(ch);
    }
  }

  @Test
  void zeroKeepsTheKernelDefault() throws IOException {
    assumeTrue(Epoll.isAvailable(), "native epoll");
    EpollDomainSocketChannel ch = new EpollDomainSocketChannel();
    try {
      int before = ch.config().getOption(ChannelOption.SO_SNDBUF);
      ReceiveTuning.socketBuffers(ch, 0);
      assertEquals(before, ch.config().getOption(ChannelOption.SO_SNDBUF));
    } finally {
      close(ch);
    }
  }

  @Test
  void tcpKeepsAutotuning() {
    assumeTrue(Epoll.isAvailable(), "native epoll");
    EpollSocketChannel ch = new EpollSocketChannel();
    try {
      int snd = ch.config().getOption(ChannelOption.SO_SNDBUF);
      int rcv = ch.config().getOption(ChannelOption.SO_RCVBUF);
      ReceiveTuning.socketBuffers(ch, MIB);
      assertEquals(snd, ch.config().getOption(ChannelOption.SO_SNDBUF));
      assertEquals(rcv, ch.config().getOption(ChannelOption.SO_RCVBUF));
    } finally {
      close(ch);
    }
  }

  @Test
  void optionDefaultsToFourMibAndRejectsNegative() {
    assertEquals(4 * MIB, FabricOptions.defaults().getLong(FabricOptions.UDS_SOCKET_BUFFER));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FabricOptions.from(Map.of("verbs.fabric.uds-socket-buffer-bytes", "-1"), Map.of()));
    assertTrue(e.getMessage().contains("verbs.fabric.uds-socket-buffer-bytes=-1"), e.getMessage());
  }
}
