process.env.TEST_ENGINE = 'mysql';
