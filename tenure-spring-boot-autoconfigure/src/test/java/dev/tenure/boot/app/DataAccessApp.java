package dev.tenure.boot.app;

import dev.tenure.Tenure;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * An application whose coordinated code uses Spring's data access as users write it: {@code JdbcTemplate} and
 * {@code JdbcClient} inside a run's completion without {@code @Transactional}, and a {@code @Transactional} service
 * around a run.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableScheduling
public class DataAccessApp {

    @Bean
    FailingTemplateSettlement failingTemplateSettlement(DataSource dataSource) {
        return new FailingTemplateSettlement(dataSource);
    }

    @Bean
    TemplateSettlement templateSettlement(DataSource dataSource) {
        return new TemplateSettlement(dataSource);
    }

    @Bean
    OuterTransactionSettlement outerTransactionSettlement(Tenure tenure, DataSource dataSource) {
        return new OuterTransactionSettlement(tenure, dataSource);
    }

    @Bean
    UnrecordedSettlement unrecordedSettlement() {
        return new UnrecordedSettlement();
    }
}
