package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.config.VerbsConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The environment of the harness self-tests: {@link SelfTestProvider} with a key-value directory
 * shared by the ranks (through {@code -Dverbs4j.selftest.dir} in a child JVM).
 */
final class SelfTestEnvironment implements KitEnvironment {
  private static final String DIR_PROPERTY = "verbs4j.selftest.dir";
  private static volatile Path shared;

  private final boolean inProcesses;
  private final Duration timeout;

  SelfTestEnvironment(boolean inProcesses, Duration timeout) {
    this.inProcesses = inProcesses;
    this.timeout = timeout;
  }

  private static synchronized Path dir() {
    if (shared == null) {
      String p = System.getProperty(DIR_PROPERTY);
      try {
        if (p != null) {
          shared = Path.of(p); // a child's: its parent removes it
        } else {
          shared = Files.createTempDirectory("verbs4j-kit-selftest");
          SelfTestRegistration.removeAtExit(shared);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return shared;
  }

  @Override
  public String name() {
    return inProcesses ? "selftest/2proc" : "selftest/threads";
  }

  @Override
  public VerbsConfig config(int rank, int size, String jobId) {
    return VerbsConfig.of(Map.of("verbs.provider", "ib", "verbs.rank", Integer.toString(rank), "verbs.size",
        Integer.toString(size), SelfTestProvider.DIR.name(), dir().toString(), SelfTestProvider.LID.name(),
        Integer.toString(rank + 1)));
  }

  @Override
  public boolean peersInProcesses() {
    return inProcesses;
  }

  @Override
  public Duration timeout() {
    return timeout;
  }

  @Override
  public Map<String, String> childSystemProperties(String jobId) {
    return Map.of(DIR_PROPERTY, dir().toString());
  }
}
