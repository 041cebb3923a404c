import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ReceptionistModule } from '../receptionist/index.js';
import { AccountController } from './account.controller.js';
import { AccountService } from './account.service.js';
import { OrgsRepository } from './orgs.repository.js';
import { OrgEntity } from './entities/org.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([OrgEntity]), ReceptionistModule],
  controllers: [AccountController],
  providers: [AccountService, OrgsRepository],
  exports: [AccountService],
})
export class AccountModule {}
