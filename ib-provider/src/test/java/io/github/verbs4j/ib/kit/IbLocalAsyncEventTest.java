package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.AsyncEventConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link AsyncEventConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalAsyncEventTest extends AsyncEventConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
