package dev.provbench.csi;

import dev.provbench.csi.state.Limits;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The image's driver training (src/main/docker/cds-train) against a driver of the test's own. */
@QuarkusTest
class CdsTrainingClientTest {
    static final long GI = 1L << 30;

    @Inject
    DriverConfig config;

    @Test
    void trainingCreatesAndDeletesItsVolumesAndLeavesNone() throws Exception {
        try (OwnDriver own = OwnDriver.start(config)) {
            CdsTrainingClient.train(own.socket());
            assertEquals(CdsTrainingClient.VOLUMES, own.store.volumesCreated());
            assertEquals(CdsTrainingClient.VOLUMES, own.store.volumesDeleted());
            assertEquals(0, own.store.volumeCount(), "the training leaves no volume behind");
        }
    }

    @Test
    void aDriverThatRefusesTheTrainingsCallsFailsIt() throws Exception {
        try (OwnDriver own = OwnDriver.start(config)) {
            own.store.setLimits(new Limits(GI, GI / 2, 0, 0, 0, 0, 0)); // 1 GiB volumes are too big
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                    () -> CdsTrainingClient.train(own.socket()));
            assertEquals(Status.Code.OUT_OF_RANGE, e.getStatus().getCode());
        }
    }
}
