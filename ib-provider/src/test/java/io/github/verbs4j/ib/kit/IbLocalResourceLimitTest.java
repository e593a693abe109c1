package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.ResourceLimitConformance;
import java.util.Map;

/** {@link ResourceLimitConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalResourceLimitTest extends ResourceLimitConformance {
  @Override
  protected KitEnvironment environment() {
    return guarded(IbKit.LOCAL);
  }

  @Override
  protected Map<String, String> maxQpSettings(int n) {
    return Map.of("verbs.ib.max-qp", Integer.toString(n));
  }
}
