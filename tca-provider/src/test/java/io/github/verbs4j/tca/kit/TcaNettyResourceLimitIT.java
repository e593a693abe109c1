package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.ResourceLimitConformance;
import java.util.Map;

/** {@link ResourceLimitConformance} on the tca provider, rank 1 in a child JVM, over the netty fabric. */
public class TcaNettyResourceLimitIT extends ResourceLimitConformance {
  @Override
  protected KitEnvironment environment() {
    return guarded(TcaKit.NETTY_2PROC);
  }

  @Override
  protected Map<String, String> maxQpSettings(int n) {
    return Map.of("verbs.tca.max-qp", Integer.toString(n));
  }
}
