package io.github.verbs4j.tca.kit;

import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class with Netty's {@code simple} leak detection (a sample of buffers tracked, leaks
 * still reported) instead of the build's {@code paranoid} level, which records a stack trace on
 * every access to every buffer: the lossy-link scenario moves ~1.5 million PEACH2 frames, and at
 * paranoid level it spent most of its time there (docs/benchmarks.md). The child JVMs of the kit
 * already run at Netty's default level. The build's level comes back after the class.
 */
public final class SampledLeakDetection implements BeforeAllCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SampledLeakDetection.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    context.getStore(NS).put("level", ResourceLeakDetector.getLevel());
    if (ResourceLeakDetector.getLevel().ordinal() > ResourceLeakDetector.Level.SIMPLE.ordinal()) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.SIMPLE);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    ResourceLeakDetector.setLevel(context.getStore(NS).get("level", ResourceLeakDetector.Level.class));
  }
}
