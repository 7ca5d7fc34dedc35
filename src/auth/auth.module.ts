import { Global, Module } from '@nestjs/common';
import { TokenService } from './token.service';

/** Bearer tokens (TokenService); AuthGuard is registered in AppModule. */
@Global()
@Module({
  providers: [TokenService],
  exports: [TokenService],
})
export class AuthModule {}
