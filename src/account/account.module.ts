import { Module } from '@nestjs/common';
import { ReceptionistModule } from '../receptionist/index.js';
import { AccountController } from './account.controller.js';
import { AccountService } from './account.service.js';
import { OrgsRepository } from './orgs.repository.js';

@Module({
  imports: [ReceptionistModule],
  controllers: [AccountController],
  providers: [AccountService, OrgsRepository],
  exports: [AccountService],
})
export class AccountModule {}
