package io.github.verbs4j.tca.kit;

import io.github.verbs4j.verbs.conformance.AsyncEventConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link AsyncEventConformance} on the tca provider, both ranks in this JVM on the local fabric. */
public class TcaLocalAsyncEventTest extends AsyncEventConformance {
  @Override
  protected KitEnvironment environment() {
    return TcaKit.LOCAL;
  }
}
