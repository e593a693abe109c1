package io.github.verbs4j.verbs.conformance;

import io.github.verbs4j.verbs.spi.VerbsProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * Registers {@link SelfTestProvider} for the harness self-tests only: a services file in a
 * temporary directory, seen by this JVM through the thread context class loader (which the rank
 * threads inherit) and by child JVMs through {@code verbs4j.kit.childExtraClassPath}.
 */
final class SelfTestRegistration {
  private static final Path DIR = create();

  private SelfTestRegistration() {}

  private static Path create() {
    try {
      Path dir = Files.createTempDirectory("verbs4j-kit-selftest-services");
      Path services = dir.resolve("META-INF/services");
      Files.createDirectories(services);
      Files.write(services.resolve(VerbsProvider.class.getName()), List.of(SelfTestProvider.class.getName()));
      removeAtExit(dir);
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Removes {@code dir} and everything in it when this JVM exits (test runs leave no temporary files). */
  static void removeAtExit(Path dir) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try (Stream<Path> all = Files.walk(dir)) {
        all.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      } catch (IOException | UncheckedIOException e) {
        // best effort at exit
      }
    }, "verbs4j-kit-selftest-cleanup"));
  }

  /** Runs {@code body} with the self-test provider visible to {@code Verbs.open}, here and in children. */
  static <T> T with(Callable<T> body) throws Exception {
    Thread t = Thread.currentThread();
    ClassLoader before = t.getContextClassLoader();
    String extraBefore = System.getProperty("verbs4j.kit.childExtraClassPath");
    try (URLClassLoader loader = new URLClassLoader(new URL[] {url()}, before)) {
      t.setContextClassLoader(loader);
      System.setProperty("verbs4j.kit.childExtraClassPath", DIR.toString());
      return body.call();
    } finally {
      t.setContextClassLoader(before);
      if (extraBefore == null) {
        System.clearProperty("verbs4j.kit.childExtraClassPath");
      } else {
        System.setProperty("verbs4j.kit.childExtraClassPath", extraBefore);
      }
    }
  }

  /** {@link #with(Callable)} for a body without a result. */
  static void run(Runnable body) throws Exception {
    with(() -> {
      body.run();
      return null;
    });
  }

  private static URL url() {
    try {
      return DIR.toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalStateException(e);
    }
  }
}
