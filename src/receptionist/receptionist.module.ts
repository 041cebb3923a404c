import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ReceptionistController } from './receptionist.controller.js';
import { ReceptionistSettingsRepository } from './receptionist-settings.repository.js';
import { ReceptionistService } from './receptionist.service.js';
import { ReceptionistSettingsEntity } from './entities/receptionist-settings.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([ReceptionistSettingsEntity])],
  controllers: [ReceptionistController],
  providers: [ReceptionistService, ReceptionistSettingsRepository],
  exports: [ReceptionistService],
})
export class ReceptionistModule {}
