package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.AsyncEvent;
import io.github.verbs4j.verbs.CompletionChannel;
import io.github.verbs4j.verbs.CompletionQueue;
import io.github.verbs4j.verbs.Context;
import io.github.verbs4j.verbs.Device;
import io.github.verbs4j.verbs.DeviceAttr;
import io.github.verbs4j.verbs.DeviceOptions;
import io.github.verbs4j.verbs.Errno;
import io.github.verbs4j.verbs.Job;
import io.github.verbs4j.verbs.NodeType;
import io.github.verbs4j.verbs.PortAttr;
import io.github.verbs4j.verbs.PortCounters;
import io.github.verbs4j.verbs.ProtectionDomain;
import io.github.verbs4j.verbs.TransportType;
import io.github.verbs4j.verbs.VerbsException;
import io.github.verbs4j.verbs.config.ConfigKey;
import io.github.verbs4j.verbs.config.VerbsConfig;
import io.github.verbs4j.verbs.spi.VerbsProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A stand-in provider for the harness self-tests ({@link KitHarnessThreadsTest}, {@link
 * KitHarnessProcessesTest}): a context with a port, a clock and a {@link Job} whose key-value
 * store is a directory, so that it works between threads and between processes. It has no verbs
 * objects. It is not registered by any services file in this jar; the self-tests register it at
 * run time, so a provider module that uses the test-jar never sees it.
 */
public final class SelfTestProvider implements VerbsProvider {
  /** The directory of the key-value store. */
  static final ConfigKey DIR = ConfigKey.string("verbs.selftest.dir", "", "key-value directory of the self-test job");
  /** Rank, for the port's LID. */
  static final ConfigKey LID = ConfigKey.longRange("verbs.selftest.lid", 1, "LID of port 1", 1, 0xBFFF);
  /** A rank whose open fails, as a fabric join does when a peer left during it; -1: none. */
  static final ConfigKey FAIL_OPEN_RANK = ConfigKey.longRange("verbs.selftest.fail-open-rank", -1,
      "rank whose open fails", -1, Integer.MAX_VALUE);

  /** For ServiceLoader. */
  public SelfTestProvider() {}

  /**
   * Must be a name {@code verbs.provider} accepts; only registered by the self-tests.
   *
   * @return {@code ib}
   */
  @Override
  public String name() {
    return "ib";
  }

  @Override
  public List<ConfigKey> configKeys() {
    return List.of(DIR, LID, FAIL_OPEN_RANK);
  }

  @Override
  public List<Device> devices(VerbsConfig config) {
    return List.of(device());
  }

  private static Device device() {
    return new Device("selftest0", "ib", NodeType.CA, TransportType.IB, 7);
  }

  @Override
  public Context open(String deviceName, VerbsConfig config, DeviceOptions options) {
    if (config.getLong(FAIL_OPEN_RANK) == config.getInt(VerbsConfig.RANK)) {
      throw new VerbsException(Errno.EIO, "cannot join the self-test job: a peer left during the join");
    }
    return new SelfTestContext(Path.of(config.get(DIR)), config.getInt(LID));
  }

  private static final class SelfTestContext implements Context {
    private final FileJob job;
    private final int lid;
    private volatile boolean closed;

    SelfTestContext(Path dir, int lid) {
      this.job = new FileJob(dir);
      this.lid = lid;
    }

    private void open() {
      if (closed) {
        throw new VerbsException(Errno.EBADF, "self-test context is closed");
      }
    }

    @Override
    public Device device() {
      return SelfTestProvider.device();
    }

    @Override
    public DeviceAttr queryDevice() {
      return DeviceAttr.builder().build();
    }

    @Override
    public PortAttr queryPort(int port) {
      open();
      if (port != 1) {
        throw VerbsException.invalid("port=" + port + " is outside [1, phys_port_cnt=1]");
      }
      return PortAttr.builder().lid(lid).build();
    }

    @Override
    public PortCounters queryPortCounters(int port) {
      queryPort(port);
      return PortCounters.read(c -> 0); // no verbs objects: nothing is ever sent or received
    }

    @Override
    public ProtectionDomain allocPd() {
      throw new VerbsException(Errno.EOPNOTSUPP, "the self-test provider has no verbs objects");
    }

    @Override
    public CompletionChannel createCompletionChannel() {
      throw new VerbsException(Errno.EOPNOTSUPP, "the self-test provider has no verbs objects");
    }

    @Override
    public CompletionQueue createCq(int cqe, CompletionChannel channel, int compVector) {
      throw new VerbsException(Errno.EOPNOTSUPP, "the self-test provider has no verbs objects");
    }

    @Override
    public Optional<AsyncEvent> pollAsyncEvent(Duration timeout) {
      open();
      return Optional.empty();
    }

    @Override
    public Job job() {
      open();
      return job;
    }

    @Override
    public long nowNanos() {
      return System.nanoTime();
    }

    @Override
    public void chargeNanos(long nanos) {
      open(); // a wall clock: the application's work already took real time
    }

    @Override
    public boolean modelledTime() {
      return false;
    }

    @Override
    public void advanceClockTo(long nanos) {
      open(); // a wall clock
    }

    @Override
    public void postAt(long nanos) {
      open(); // a wall clock
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** put = write a file atomically; get = wait for it. Keys are hex-encoded into file names. */
  private static final class FileJob implements Job {
    private final Path dir;

    FileJob(Path dir) {
      this.dir = dir;
    }

    private Path file(String key) {
      StringBuilder sb = new StringBuilder();
      for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
        sb.append(String.format("%02x", b));
      }
      return dir.resolve(sb.toString());
    }

    @Override
    public int rank() {
      return 0;
    }

    @Override
    public int size() {
      return 1;
    }

    @Override
    public void put(String key, byte[] value) {
      Path f = file(key);
      try {
        if (Files.exists(f)) {
          if (!Arrays.equals(Files.readAllBytes(f), value)) {
            throw VerbsException.invalid("key " + key + " was already published with another value");
          }
          return;
        }
        Path tmp = Files.createTempFile(dir, "put", ".tmp");
        Files.write(tmp, value);
        try {
          Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(tmp, f);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public byte[] get(String key, Duration timeout) {
      Path f = file(key);
      Backoff backoff = new Backoff();
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!Files.exists(f)) {
        if (System.nanoTime() - deadline > 0) {
          throw new VerbsException(Errno.ETIMEDOUT, "key " + key + " not published within " + timeout);
        }
        backoff.idle();
      }
      try {
        return Files.readAllBytes(f);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void barrier(String name, Duration timeout) {
      throw new VerbsException(Errno.EOPNOTSUPP, "the kit's Peer builds barriers from put/get");
    }
  }
}
