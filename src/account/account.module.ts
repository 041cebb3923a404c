import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ReceptionistModule } from '../receptionist/index.js';
import { AccountController } from './account.controller.js';
import { AccountService } from './account.service.js';
import { OrgEntity } from './entities/org.entity.js';
import { OrgsRepository } from './orgs.repository.js';

@Module({
  imports: [TypeOrmModule.forFeature([OrgEntity]), ReceptionistModule],
  controllers: [AccountController],
  providers: [AccountService, OrgsRepository],
  exports: [AccountService],
})
export class AccountModule {}
