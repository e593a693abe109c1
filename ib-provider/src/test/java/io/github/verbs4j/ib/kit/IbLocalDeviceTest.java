package io.github.verbs4j.ib.kit;

import io.github.verbs4j.verbs.conformance.DeviceConformance;
import io.github.verbs4j.verbs.conformance.KitEnvironment;

/** {@link DeviceConformance} on the ib provider, both ranks in this JVM on the local fabric. */
public class IbLocalDeviceTest extends DeviceConformance {
  @Override
  protected KitEnvironment environment() {
    return IbKit.LOCAL;
  }
}
