package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.ResourceLimitConformance;
import java.util.Map;

/** {@link ResourceLimitConformance} on the ib provider, rank 1 in a child JVM, over the netty fabric. */
public class IbNettyResourceLimitIT extends ResourceLimitConformance {
  @Override
  protected KitEnvironment environment() {
    return guarded(IbKit.NETTY_2PROC);
  }

  @Override
  protected Map<String, String> maxQpSettings(int n) {
    return Map.of("verbs.ib.max-qp", Integer.toString(n));
  }
}
