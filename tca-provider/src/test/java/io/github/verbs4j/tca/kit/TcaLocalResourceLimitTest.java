package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.KitEnvironment;
import io.github.verbs4j.verbs.conformance.ResourceLimitConformance;
import java.util.Map;

/** {@link ResourceLimitConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalResourceLimitTest extends ResourceLimitConformance {
  @Override
  protected KitEnvironment environment() {
    return guarded(TcaKit.LOCAL);
  }

  @Override
  protected Map<String, String> maxQpSettings(int n) {
    return Map.of("verbs.tca.max-qp", Integer.toString(n));
  }
}
