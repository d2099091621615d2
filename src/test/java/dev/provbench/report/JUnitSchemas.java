package dev.provbench.report;

import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JUnit XML schemas CI consumers follow — the common one (windyroad JUnit.xsd) and Jenkins' junit-10.xsd —
 * as the build fetched them (pom.xml, execution junit-schemas) into target/junit-schema.
 */
public final class JUnitSchemas {
    private JUnitSchemas() {
    }

    public static final List<Path> SCHEMAS = List.of(Path.of("target/junit-schema/JUnit.xsd"),
            Path.of("target/junit-schema/jenkins-junit.xsd"));

    /** Throws (a SAXException naming line and column) unless {@code xml} is valid against every schema. */
    public static void validate(String xml) throws Exception {
        for (Path xsd : SCHEMAS) {
            assertTrue(Files.isRegularFile(xsd), xsd + " is missing: the build fetches it (generate-test-resources)");
            SchemaFactory f = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            f.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setProperty(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.newSchema(xsd.toFile()).newValidator().validate(new StreamSource(new StringReader(xml)));
        }
    }
}
