process.env.TEST_ENGINE = 'sqlite';
