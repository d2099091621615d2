package dev.provbench.csi;

import csi.v1.ControllerGrpc;
import csi.v1.IdentityGrpc;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CsiMethodsTest {
    @Test
    void namedConstantsAreTheGeneratedDescriptorsNames() {
        assertEquals(CsiMethods.bareName(IdentityGrpc.getProbeMethod().getFullMethodName()), CsiMethods.PROBE);
        assertEquals(CsiMethods.bareName(ControllerGrpc.getCreateVolumeMethod().getFullMethodName()),
                CsiMethods.CREATE_VOLUME);
        assertEquals(CsiMethods.bareName(ControllerGrpc.getDeleteVolumeMethod().getFullMethodName()),
                CsiMethods.DELETE_VOLUME);
        assertTrue(CsiMethods.isKnown(CsiMethods.PROBE) && CsiMethods.isKnown(CsiMethods.CREATE_VOLUME)
                && CsiMethods.isKnown(CsiMethods.DELETE_VOLUME));
    }
}
